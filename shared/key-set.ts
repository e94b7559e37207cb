// Keys kept in one setting (a secret deployed, a variable locally) as one plain key or as a key set
// for rotation: `{"current":"2026-11","keys":{"2025-01":"<old>","2026-11":"<new>"}}`. What is made
// uses the current key and names it by its id; what was made is opened with whichever key of the set
// it names, so rotating adds a key and breaks nothing already made. A key is named by an id derived
// from the key itself, not by its label in the set: labels are for people, and a key keeps its id
// when a plain key becomes one entry of a set or is relabelled, so no operator step strands anything.
import { createHmac } from 'node:crypto';
import { describeError, log } from './log';

export interface SettingKey {
  /** What sealed values carry to name the key: 4 base64url characters derived from the key. */
  id: string;
  secret: string;
}

export interface KeySet {
  /** The key new values are made with. */
  current: SettingKey;
  /** Every key a value may have been made with, the current one included. */
  all: readonly SettingKey[];
}

export const keyIdLength = 4;
/** Keys in a set are written by people: refuse one too short to be a random key. */
const minimumSetKeyLength = 32;

// The derivation's label predates the other settings; it stays, so the token key keeps its id.
function keyId(secret: string): string {
  return createHmac('sha256', secret).update('token-key-id').digest('base64url').slice(0, keyIdLength);
}

function settingKey(secret: string): SettingKey {
  return { id: keyId(secret), secret };
}

function parseSet(value: string, invalid: (problem: string) => Error): KeySet {
  let set: { current?: unknown; keys?: Record<string, unknown> } | undefined;
  try {
    set = JSON.parse(value);
  } catch {
    // Left undefined: refused below.
  }
  const entries = Object.entries(set?.keys ?? {});
  if (typeof set?.current !== 'string' || entries.length === 0) throw invalid('must be one key, or {"current":"<label>","keys":{"<label>":"<key>"}}');
  for (const [label, secret] of entries) {
    if (typeof secret !== 'string' || secret.length < minimumSetKeyLength) throw invalid(`key "${label}" must be at least ${minimumSetKeyLength} characters`);
  }
  const current = entries.find(([label]) => label === set.current)?.[1];
  if (current === undefined) throw invalid(`"current" names no key`);
  return { current: settingKey(current as string), all: entries.map(([, secret]) => settingKey(secret as string)) };
}

/** The keys a setting's value holds: a key set when it is JSON (starts with `{`), else one plain key. Errors name the setting, never a key. */
export function parseKeySetting(setting: string, value: string): KeySet {
  const invalid = (problem: string) => new Error(`${setting} (or its secret) ${problem}`);
  if (value === '') throw invalid('is empty');
  if (value.startsWith('{')) return parseSet(value, invalid);
  const key = settingKey(value);
  return { current: key, all: [key] };
}

/**
 * The keys of one setting, parsed once per value (secrets are re-read while a container lives). A
 * value with a mistake in it fails the first use; once keys were read, a mistaken new value (a typo
 * in a rotation) is logged as `refused` and the keys read before stay in use, so nothing breaks over it.
 */
export function keySetting(setting: string, read: () => string, refused: string): () => KeySet {
  let parsedFrom: string | undefined;
  let parsed: KeySet | undefined;
  return () => {
    const value = read();
    if (parsed === undefined || value !== parsedFrom) {
      try {
        parsed = parseKeySetting(setting, value);
      } catch (error) {
        if (parsed === undefined) throw error;
        log.error(refused, describeError(error));
      }
      parsedFrom = value;
    }
    return parsed;
  };
}
