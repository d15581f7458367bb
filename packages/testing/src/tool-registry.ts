// The registry the server uses, over index objects a test provides: tests see what a deployment serves.
export { createIndexToolRegistry as createInMemoryToolRegistry, type RegistryPacks } from '@kindgi/bindings';
