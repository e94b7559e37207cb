// A fake SESv2 client for the SES adapters' unit tests: it records each command and answers from a
// script, in order, as the SDK would (an Error is thrown as the SDK throws a service error).

/** One scripted answer: the command's output, or the error SES answers with. */
export type SesAnswer = Record<string, unknown> | Error;

/** An SDK-shaped service error, as the client throws it. */
export function sesError(name: string): Error {
  return Object.assign(new Error(`${name} from SES`), { name, $metadata: {} });
}

/** A client whose `send` records each command and gives the next answer; one call too many fails. */
export function scriptedSesClient(...answers: SesAnswer[]) {
  const sent: { command: string; input: unknown }[] = [];
  const client = {
    async send(command: object): Promise<unknown> {
      sent.push({ command: command.constructor.name, input: (command as { input: unknown }).input });
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected ${command.constructor.name}`);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { client, sent };
}

/** Put APP_RUNTIME and TABLE_NAME back after each test of a port's runtime choice. */
export function restoreRuntimeAfterEach(resetConfig: () => void): void {
  const saved = { APP_RUNTIME: process.env.APP_RUNTIME, TABLE_NAME: process.env.TABLE_NAME };
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfig();
  });
}
