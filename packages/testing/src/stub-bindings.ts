import type {
  BlobStorageBinding,
  IdempotencyStore,
  RunCheckBinding,
  RunHandlerBinding,
  RunStore,
  S3CredentialBinding,
  TokenResolver,
  ToolRegistry,
} from '@kindgi/bindings';

/** Every binding `createApp` takes, as `createStubAppBindings()` returns them. */
export interface AppBindings {
  resolveToken: TokenResolver;
  runHandler: RunHandlerBinding;
  runCheck: RunCheckBinding;
  blobStorage: BlobStorageBinding;
  s3Credentials: S3CredentialBinding;
  toolRegistry: ToolRegistry;
  runStore: RunStore;
  idempotencyStore: IdempotencyStore;
}

/** Thrown when a test reaches a binding it did not provide. */
export class UnprovidedBindingError extends Error {
  readonly binding: string;
  readonly method: string;
  constructor(binding: string, method: string) {
    super(
      `${binding}.${method}() was called, but no '${binding}' was given to createStubAppBindings(); pass one in its overrides.`,
    );
    this.name = 'UnprovidedBindingError';
    this.binding = binding;
    this.method = method;
  }
}

const METHODS = {
  blobStorage: [
    'put',
    'get',
    'head',
    'list',
    'delete',
    'putByKey',
    'getByKey',
    'headByKey',
    'deleteByKey',
    'listByPrefix',
    'initiateMultipartUpload',
    'uploadPart',
    'completeMultipartUpload',
    'abortMultipartUpload',
    'listParts',
  ],
  s3Credentials: ['resolve'],
  toolRegistry: ['listTools', 'getTool', 'listGuardrails', 'getGuardrail'],
  runStore: [
    'enqueue',
    'get',
    'list',
    'claim',
    'heartbeat',
    'requeue',
    'finish',
    'expireLeases',
    'appendEvent',
    'listEvents',
  ],
  idempotencyStore: ['get', 'set'],
} as const satisfies { [K in keyof AppBindings]?: readonly (keyof AppBindings[K])[] };

function unprovidedObject<T>(binding: string, methods: readonly string[]): T {
  const object: Record<string, () => Promise<never>> = {};
  for (const method of methods) {
    object[method] = async () => {
      throw new UnprovidedBindingError(binding, method);
    };
  }
  return object as T;
}

function unprovidedFunction<T>(binding: string): T {
  return (async () => {
    throw new UnprovidedBindingError(binding, 'call');
  }) as T;
}

/**
 * Every binding of `createApp`, each throwing `UnprovidedBindingError` (naming the binding and method) when
 * called, except those given in `overrides`. Spread it into `createApp({...createStubAppBindings({...})})`.
 */
export function createStubAppBindings(overrides: Partial<AppBindings> = {}): AppBindings {
  return {
    resolveToken: unprovidedFunction<TokenResolver>('resolveToken'),
    runHandler: unprovidedFunction<RunHandlerBinding>('runHandler'),
    runCheck: unprovidedFunction<RunCheckBinding>('runCheck'),
    blobStorage: unprovidedObject<BlobStorageBinding>('blobStorage', METHODS.blobStorage),
    s3Credentials: unprovidedObject<S3CredentialBinding>('s3Credentials', METHODS.s3Credentials),
    toolRegistry: unprovidedObject<ToolRegistry>('toolRegistry', METHODS.toolRegistry),
    runStore: unprovidedObject<RunStore>('runStore', METHODS.runStore),
    idempotencyStore: unprovidedObject<IdempotencyStore>('idempotencyStore', METHODS.idempotencyStore),
    ...overrides,
  };
}
