import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI_AUTH_DEFAULTS, readProjectConfig } from './projectConfig';
import { authConfig } from './authConfig';

/** A config.toml in a folder of its own, with the schema list every project file has. */
function projectFile(auth: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repx-config-'));
  const file = path.join(dir, 'config.toml');
  fs.writeFileSync(file, `[db.migrations]\nschema_paths = ["./schemas/core.sql"]\n${auth}`);
  return file;
}

describe("auth's settings from supabase/config.toml", () => {
  it("reads RepX's file: confirmations on, the specification's password length, an hour's tokens", () => {
    expect(readProjectConfig().auth).toEqual({
      siteUrl: 'http://localhost:3000',
      jwtExpiry: 3600,
      minimumPasswordLength: 6,
      emailConfirmations: true,
    });
  });

  it("takes the Supabase CLI's defaults for what a file leaves out: confirmations off", () => {
    expect(readProjectConfig(projectFile('')).auth).toEqual(CLI_AUTH_DEFAULTS);
    expect(CLI_AUTH_DEFAULTS.emailConfirmations).toBe(false);
  });

  it('reads the four settings a CLI user sets', () => {
    const file = projectFile(
      '[auth]\nsite_url = "https://repx.example"\njwt_expiry = 900\nminimum_password_length = 10\n[auth.email]\nenable_confirmations = false\n',
    );
    expect(readProjectConfig(file).auth).toEqual({
      siteUrl: 'https://repx.example',
      jwtExpiry: 900,
      minimumPasswordLength: 10,
      emailConfirmations: false,
    });
  });

  it('refuses a setting of the wrong type, naming it', () => {
    expect(() => readProjectConfig(projectFile('[auth.email]\nenable_confirmations = "no"\n'))).toThrow(
      '[auth.email] enable_confirmations must be a boolean',
    );
    expect(() => readProjectConfig(projectFile('[auth]\njwt_expiry = "1h"\n'))).toThrow(
      '[auth] jwt_expiry must be a number',
    );
  });

  it('lets the environment override the file', () => {
    const file = readProjectConfig().auth;
    expect(
      authConfig(
        {
          AUTH_EMAIL_CONFIRMATIONS: 'false',
          JWT_EXPIRY: '600',
          PASSWORD_MIN_LENGTH: '8',
          SITE_URL: 'https://repx.example/',
        },
        file,
      ),
    ).toEqual({ siteUrl: 'https://repx.example', jwtExpiry: 600, minimumPasswordLength: 8, emailConfirmations: false });
    expect(authConfig({}, file)).toEqual(file);
  });

  it('refuses bad values in words', () => {
    const file = readProjectConfig().auth;
    expect(() => authConfig({ AUTH_EMAIL_CONFIRMATIONS: 'yes' }, file)).toThrow(
      'AUTH_EMAIL_CONFIRMATIONS="yes": expected true or false',
    );
    expect(() => authConfig({ PASSWORD_MIN_LENGTH: '5' }, file)).toThrow(
      'PASSWORD_MIN_LENGTH="5": expected a whole number from 6 to 72',
    );
    expect(() => authConfig({}, { ...file, minimumPasswordLength: 4 })).toThrow(
      '[auth] minimum_password_length must be a whole number',
    );
    expect(() => authConfig({ JWT_EXPIRY: 'soon' }, file)).toThrow(
      'JWT_EXPIRY="soon": expected a whole number of seconds, 30 or more',
    );
    expect(() => authConfig({ SITE_URL: 'localhost' }, file)).toThrow(
      'SITE_URL="localhost": expected an http:// or https:// URL',
    );
  });
});

describe("the API's max_rows from supabase/config.toml", () => {
  it("reads RepX's file, leaves it out when the file does, and refuses what is not a positive whole number", () => {
    expect(readProjectConfig().maxRows).toBe(1000);
    expect(readProjectConfig(projectFile('')).maxRows).toBeUndefined();
    expect(readProjectConfig(projectFile('[api]\nmax_rows = 50\n')).maxRows).toBe(50);
    expect(() => readProjectConfig(projectFile('[api]\nmax_rows = 0\n'))).toThrow(
      '[api] max_rows must be a positive whole number',
    );
    expect(() => readProjectConfig(projectFile('[api]\nmax_rows = "many"\n'))).toThrow(
      '[api] max_rows must be a number',
    );
  });
});
