// The request limits on the deployed stack: API Gateway's stage throttle stays as the outer guard,
// and the per-account and per-link limits reach every HTTP function from context, or keep their
// defaults when context says nothing.
import { httpFamilies } from '../../shared/routes';
import { synthesize, type Synthesized } from './support';

function environmentOf({ stack, template }: Synthesized, name: string): Record<string, string> {
  const id = stack.getLogicalId(stack.functions.functionOf(name).node.defaultChild as never);
  const resource = template.toJSON().Resources[id] as { Properties: { Environment: { Variables: Record<string, string> } } };
  return resource.Properties.Environment.Variables;
}

test('accountRateLimit and publicRateLimit from context reach every HTTP function', () => {
  // Act
  const synthesized = synthesize({ accountRateLimit: '20', publicRateLimit: 5 });

  // Assess
  for (const family of httpFamilies) {
    expect(environmentOf(synthesized, family)).toMatchObject({ ACCOUNT_RATE_LIMIT: '20', PUBLIC_RATE_LIMIT: '5' });
  }
  expect(environmentOf(synthesized, 'send-deliver').ACCOUNT_RATE_LIMIT).toBeUndefined();
});

test('without context the functions keep the defaults and the stage keeps its throttle', () => {
  // Act
  const synthesized = synthesize();

  // Assess
  expect(environmentOf(synthesized, 'contacts').ACCOUNT_RATE_LIMIT).toBeUndefined();
  synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
    StageName: '$default',
    DefaultRouteSettings: { ThrottlingBurstLimit: 250, ThrottlingRateLimit: 250 },
  });
});

test('a limit that is not a positive integer is refused at synth', () => {
  expect(() => synthesize({ accountRateLimit: '0' })).toThrow(/accountRateLimit must be a positive integer/);
});

test("sesControlRate from context reaches every function that calls SES's control plane, and only those", () => {
  const synthesized = synthesize({ sesControlRate: '0.5' });
  const paced = ['senders', 'sender-domains', 'identity-refresh', 'send-dispatch', 'automation-steps', 'send-watchdog'];
  for (const name of paced) expect({ name, rate: environmentOf(synthesized, name).SES_CONTROL_RATE }).toEqual({ name, rate: '0.5' });
  for (const name of ['send-deliver', 'test-mails', 'contacts']) expect({ name, rate: environmentOf(synthesized, name).SES_CONTROL_RATE }).toEqual({ name, rate: undefined });
  // Unset, the functions keep SES's documented 1 a second (shared/rate-limits/ses-control.ts).
  expect(environmentOf(synthesize(), 'identity-refresh').SES_CONTROL_RATE).toBeUndefined();
});
