import { ValidatorCache } from '@kindgi/protocol';

/** The compiled-validator cache `runHandler` and `runCheck` share unless given their own. */
export const sharedValidators = new ValidatorCache();
