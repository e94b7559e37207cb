// Every table key is built in this folder and nowhere else. Account data lives in partitions that
// start with the account id (`A#<id>#<entity>`), so one account's records can never be read through
// another's key.
export * from './base';
export * from './accounts';
export * from './contacts';
export * from './scheduled-jobs';
export * from './suppressions';
export * from './senders';
export * from './segments';
export * from './reference-data';
export * from './sending';
export * from './automations';
export * from './lists-and-imports';
