// Structured JSON log lines, one object per line, so CloudWatch Logs Insights can query fields.

type Level = 'debug' | 'info' | 'warn' | 'error';

const quiet = () => process.env.LOG_LEVEL === 'silent';

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (quiet()) return;
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...fields });
  if (level === 'error' || level === 'warn') process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

export const log = {
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('error', message, fields),
};

/** The loggable parts of an unknown thrown value. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error: error.name, detail: error.message, stack: error.stack };
  return { error: String(error) };
}
