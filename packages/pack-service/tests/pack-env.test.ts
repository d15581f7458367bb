import { describe, expect, it } from 'vitest';
import {
  missingPackEnv,
  PLATFORM_ENV_NAMES,
  PLATFORM_ENV_PREFIXES,
  resolvePackEnv,
  undeclaredPackEnv,
} from '../src/process/pack-env.js';

describe('declared pack env', () => {
  it('lists the platform names and prefixes as published', () => {
    const published = [
      'PATH HOME HOSTNAME USER LANG LANGUAGE TZ TMPDIR TMP TEMP PWD SHLVL _ __CF_USER_TEXT_ENCODING',
      'NODE_ENV NODE_VERSION YARN_VERSION NODE_OPTIONS NODE_EXTRA_CA_CERTS JAVA_HOME JAVA_VERSION JAVA_TOOL_OPTIONS',
      'JDK_JAVA_OPTIONS _JAVA_OPTIONS VIRTUAL_ENV PORT',
      'HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE',
      'CURL_CA_BUNDLE K_SERVICE K_REVISION K_CONFIGURATION',
      'AWS_REGION AWS_DEFAULT_REGION AWS_EXECUTION_ENV AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI AWS_CONTAINER_AUTHORIZATION_TOKEN AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
      'AWS_WEB_IDENTITY_TOKEN_FILE AWS_ROLE_ARN ECS_CONTAINER_METADATA_URI ECS_CONTAINER_METADATA_URI_V4',
      'IDENTITY_ENDPOINT IDENTITY_HEADER MSI_ENDPOINT MSI_SECRET AZURE_CLIENT_ID AZURE_TENANT_ID',
      'AZURE_FEDERATED_TOKEN_FILE AZURE_AUTHORITY_HOST',
    ]
      .join(' ')
      .split(' ');
    expect(PLATFORM_ENV_NAMES).toEqual(published);
    expect(PLATFORM_ENV_PREFIXES).toEqual(['LC_', 'PYTHON', 'OTEL_', 'CLOUD_RUN_', 'CONTAINER_APP_']);
  });

  it('resolves a declaration into sorted lists', () => {
    expect(resolvePackEnv({ required: ['B', 'A', 'a'], optional: ['_Z'] })).toEqual({
      kind: 'ok',
      value: { required: ['A', 'B', 'a'], optional: ['_Z'] },
    });
    expect(resolvePackEnv(undefined)).toEqual({ kind: 'ok', value: { required: [], optional: [] } });
  });

  it('refuses bad declarations with every problem joined', () => {
    expect(resolvePackEnv('A')).toEqual({
      kind: 'err',
      error: '`env` must be an object with `required` and/or `optional` lists of environment variable names',
    });
    expect(resolvePackEnv({ required: ['A', 'A', '1X', 'KINDGI_X'], optional: ['A'], x: [] })).toEqual({
      kind: 'err',
      error: [
        '`env` takes only `required` and `optional`, not `x`',
        '"A" is listed twice in `env.required`',
        '"1X" in `env.required` isn\'t an environment variable name',
        '"KINDGI_X" in `env.required`: `KINDGI_*` names configure Kindgi, not the pack',
        '"A" is in both `env.required` and `env.optional`',
      ].join('; '),
    });
    expect(resolvePackEnv({ optional: 'A' })).toEqual({ kind: 'err', error: '`env.optional` must be a list of names' });
  });

  it('counts a required name as missing when unset or empty, not when whitespace', () => {
    expect(missingPackEnv({ required: ['C', 'A', 'B'] }, { A: '', B: ' ' })).toEqual(['A', 'C']);
    expect(missingPackEnv(undefined, {})).toEqual([]);
  });

  it('drops only undeclared, non-KINDGI, non-platform names', () => {
    const env = {
      DECLARED: '1',
      OPTIONAL: '1',
      SECRET_DB_URL: 'x',
      KINDGI_LOG_LEVEL: 'info',
      PATH: '/bin',
      LC_ALL: 'C',
      OTEL_SERVICE_NAME: 's',
      PYTHONPATH: '/p',
      AWS_SECRET_ACCESS_KEY: 'k',
      npm_config_x: 'y',
    };
    expect(undeclaredPackEnv({ required: ['DECLARED'], optional: ['OPTIONAL'] }, env)).toEqual([
      'AWS_SECRET_ACCESS_KEY',
      'SECRET_DB_URL',
      'npm_config_x',
    ]);
  });
});
