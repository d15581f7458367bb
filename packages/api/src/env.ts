import type { Principal } from '@kindgi/bindings';

/** Per-request values the /v1 middleware sets for handlers. */
export interface AppEnv {
  Variables: {
    requestId: string;
    principal: Principal;
  };
}
