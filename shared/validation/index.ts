// The validation toolkit: field builders, the schema validator and the message catalogue.
export { array, email, file, flag, idList, integer, isEmail, maxBulkIds, numeric, record, string, Field } from './field';
export { validate, type Infer, type Schema } from './validate';
export { messages, attributeName, format } from './messages';
