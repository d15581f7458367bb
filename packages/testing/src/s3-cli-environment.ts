import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Makes `dir` the home of the Debian S3 CLIs (aws, rclone, s3cmd), so they read no config but the test's and
 * talk only to 127.0.0.1: writes the AWS config (us-east-1, path-style) and returns the environment to run
 * them with, signing with `credentials`.
 */
export function s3CliEnvironment(dir: string, credentials: { keyId: string; secret: string }): Record<string, string> {
  writeFileSync(join(dir, 'aws-config'), '[default]\nregion = us-east-1\ns3 =\n  addressing_style = path\n');
  return {
    PATH: '/usr/bin:/bin',
    HOME: dir,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    AWS_CONFIG_FILE: join(dir, 'aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    AWS_ACCESS_KEY_ID: credentials.keyId,
    AWS_SECRET_ACCESS_KEY: credentials.secret,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
    NO_PROXY: '127.0.0.1',
  };
}
