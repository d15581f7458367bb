export {
  type BuildExtension,
  defineBuildExtension,
  type ImageConfig,
  type PrismaOptions,
  prisma,
} from '@kindgi/sdk/build';
