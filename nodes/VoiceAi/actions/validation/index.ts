// Reading and checking the fields of an item, by kind of value. Every check runs before the item's
// request is built: a bad value never reaches the service.
export { checkE164, checkHttpUrl, checkSipUri } from './addresses';
export { checkAnyHexColour, checkHexColour } from './colours';
export type { FieldRef } from './fieldError';
export { fieldsIn, invalidField } from './fieldError';
export { MAX_PATH_ID_LENGTH, checkPathId, checkPathSegment, checkUuid } from './ids';
export { decimalText, readInteger, readListLimit } from './numbers';
export { checkOneOf, readBoolean, readCollection, readString } from './readers';
