import { createRoot } from 'react-dom/client';
import { configureSupabase } from '@repex/shared-ui/platform';
import { App } from './App';
import { loadConfig } from './config';
import { registerConfiguredRemotes } from './remotes/registry';
import { composeRoutes } from './remotes/routes';

const root = createRoot(document.getElementById('root')!);

loadConfig()
  .then((config) => {
    configureSupabase(config.supabaseUrl, config.supabaseAnonKey, config.maxRows);
    registerConfiguredRemotes(config.remotes);
    // The shell's own pages render at once; the remotes' routes join as soon as they are read.
    root.render(<App routes={composeRoutes(config.remotes)} passwordMinLength={config.passwordMinLength} />);
  })
  .catch((error: unknown) => {
    console.error('[shell] start-up failed', error);
    root.render(
      <p style={{ padding: 32, textAlign: 'center' }}>
        RepX could not start: its configuration is unavailable. Please reload in a moment.
      </p>,
    );
  });
