import {
  buildEnvSteps,
  extensionSteps,
  type ImageParts,
  installStep,
  renderedHeader,
  systemPackagesStep,
} from './image-parts.js';
import type { ImagePlan, Stage, Step } from './plan.js';
import { copyArgs, ref } from './shell.js';

/** Base images of a Java pack, pinned by digest placeholders the user replaces (docs/pack-image.md). */
export const MAVEN_IMAGE_PLACEHOLDER = 'maven:3.9-eclipse-temurin-17@sha256:SET-THE-DIGEST-build-arg-MAVEN_IMAGE';
export const JRE_IMAGE_PLACEHOLDER =
  'eclipse-temurin:17-jre@sha256:SET-THE-DIGEST-image.baseImage-or-build-arg-JRE_IMAGE';

/** What a Java pack's plan is rendered from. */
export interface JavaPlanInput {
  readonly packId: string;
  readonly packVersion: string;
  /** The pack has the Maven wrapper (`mvnw` and `.mvn/`): it pins Maven, so the build uses it. */
  readonly wrapper: boolean;
  readonly parts: ImageParts;
  readonly publishedAt: string;
  readonly artifactVersion: string;
}

function buildStage(input: JavaPlanInput): Stage {
  const { image } = input.parts;
  const maven = input.wrapper ? './mvnw -B -q' : 'mvn -B -q';
  const manifest = input.wrapper ? ['pom.xml', 'mvnw', '.mvn'] : ['pom.xml'];
  const steps: Step[] = [
    { instruction: 'WORKDIR', args: '/src' },
    ...buildEnvSteps(image),
    ...systemPackagesStep(image),
    ...manifest.map(
      (path): Step => ({ instruction: 'COPY', args: copyArgs([path], path === '.mvn' ? '.mvn/' : './') }),
    ),
    // Maven has no lockfile: the pom pins versions, and the dependencies resolve once, in a layer of their own.
    installStep(image, `${maven} dependency:go-offline`, 'the dependency download (pom.xml)'),
    ...extensionSteps(input.parts),
    { instruction: 'COPY', args: '. .', summary: 'the pack folder (Containerfile.dockerignore leaves out the rest)' },
    {
      instruction: 'RUN',
      args: `${maven} package -DskipTests dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=target/lib`,
      summary: 'Maven: target/classes and the runtime classpath in target/lib',
    },
    {
      instruction: 'RUN',
      args: `java -cp "target/classes:target/lib/*" com.kindgi.pack.Main index --pack-dir . --classes target/classes --output /src/index.json --published-at "${ref('PUBLISHED_AT')}" --artifact-version "${ref('ARTIFACT_VERSION')}"`,
      summary: 'Main index: /src/index.json',
    },
  ];
  return {
    name: 'build',
    from: ref('MAVEN_IMAGE'),
    comment: 'Maven builds the pack with the SDK; Main index writes index.json.',
    steps: [{ instruction: 'ARG', args: 'PUBLISHED_AT' }, { instruction: 'ARG', args: 'ARTIFACT_VERSION' }, ...steps],
  };
}

function runtimeStage(input: JavaPlanInput): Stage {
  const steps: Step[] = [
    ...systemPackagesStep(input.parts.image),
    { instruction: 'WORKDIR', args: '/app' },
    { instruction: 'COPY', args: copyArgs(['/src/target/classes'], './classes', 'build') },
    { instruction: 'COPY', args: copyArgs(['/src/target/lib'], './lib', 'build') },
    { instruction: 'COPY', args: copyArgs(['/src/index.json'], './index.json', 'build') },
    { instruction: 'ENV', args: 'PORT=8080' },
    { instruction: 'EXPOSE', args: '8080' },
    {
      instruction: 'CMD',
      args: JSON.stringify([
        'java',
        '-cp',
        '/app/classes:/app/lib/*',
        'com.kindgi.pack.Main',
        'serve',
        '--index',
        '/app/index.json',
      ]),
    },
  ];
  return {
    name: 'runtime',
    from: ref('JRE_IMAGE'),
    comment: 'a JRE, the classes, the runtime classpath and the index; no build environment, no secrets.',
    steps,
  };
}

/** A Java pack's image: a Maven build stage (build and `Main index`) and a JRE runtime stage. */
export function javaImagePlan(input: JavaPlanInput): ImagePlan {
  const { image } = input.parts;
  return {
    header: [
      ...renderedHeader(input.packId, input.packVersion, image),
      'MAVEN_IMAGE and JRE_IMAGE are pinned by digest: --build-arg MAVEN_IMAGE=… / JRE_IMAGE=… (or image.baseImage).',
      'PUBLISHED_AT and ARTIFACT_VERSION pin index.json.',
    ],
    args: [
      { instruction: 'ARG', args: `MAVEN_IMAGE=${MAVEN_IMAGE_PLACEHOLDER}` },
      { instruction: 'ARG', args: `JRE_IMAGE=${image.baseImage ?? JRE_IMAGE_PLACEHOLDER}` },
      { instruction: 'ARG', args: `PUBLISHED_AT=${input.publishedAt}` },
      { instruction: 'ARG', args: `ARTIFACT_VERSION=${input.artifactVersion}` },
    ],
    stages: [buildStage(input), runtimeStage(input)],
  };
}
