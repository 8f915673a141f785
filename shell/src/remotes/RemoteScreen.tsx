import { Component, useEffect, useState, type ComponentType, type ReactNode } from 'react';
import { CenteredStatus, ErrorState, Page } from '@repex/shared-ui/ui';
import { loadScreen } from './registry';

type LoadState =
  { status: 'loading' } | { status: 'ready'; Screen: ComponentType } | { status: 'failed'; error: Error };

interface Props {
  remote: string;
  module: string;
  /** Human name of the screen, used in the error message. */
  label: string;
}

/**
 * A screen provided by a remote, fetched when its route is first shown. If the remote cannot
 * be loaded (server down, entry broken) or throws while rendering, only this area shows the
 * error with Retry; the navigation and every other route keep working.
 */
export function RemoteScreen({ remote, module, label }: Props) {
  const [attempt, setAttempt] = useState(0);
  // What the current attempt came to; an attempt that has not settled yet is loading.
  const [settled, setSettled] = useState<{ attempt: number; state: LoadState }>();
  const state: LoadState = settled?.attempt === attempt ? settled.state : { status: 'loading' };

  useEffect(() => {
    let live = true;
    loadScreen(remote, module, attempt > 0)
      .then((Screen) => live && setSettled({ attempt, state: { status: 'ready', Screen } }))
      .catch((error: unknown) => {
        console.error(`[shell] loading ${remote}/${module} failed`, error);
        const failed = error instanceof Error ? error : new Error(String(error));
        if (live) setSettled({ attempt, state: { status: 'failed', error: failed } });
      });
    return () => {
      live = false;
    };
  }, [remote, module, attempt]);

  const retry = () => setAttempt((n) => n + 1);

  if (state.status === 'loading') return <CenteredStatus aria-busy="true">Loading...</CenteredStatus>;
  if (state.status === 'failed')
    return isChunkGone(state.error) ? (
      <RemoteReplaced label={label} />
    ) : (
      <RemoteUnavailable label={label} onRetry={retry} />
    );
  return (
    <RenderBoundary key={attempt} label={label} onRetry={retry}>
      <state.Screen />
    </RenderBoundary>
  );
}

/**
 * A part of the screen's code that no longer exists where the page's copy of the remote says:
 * a release removed since the page was opened. The service is up; a reload fetches the new one.
 */
const isChunkGone = (error: Error) =>
  error.name === 'ChunkLoadError' || /Loading (css )?chunk [^ ]+ failed/i.test(error.message);

function RemoteReplaced({ label }: { label: string }) {
  return (
    <Page data-testid="remote-replaced">
      <ErrorState
        title={`A new version of the ${label} screen is out.`}
        message="This page was opened on an earlier version, whose files are gone. Reload to get the new one; nothing you saved is lost."
        retryLabel="Reload"
        onRetry={() => window.location.reload()}
      />
    </Page>
  );
}

function RemoteUnavailable({ label, onRetry }: { label: string; onRetry: () => void }) {
  return (
    <Page data-testid="remote-error">
      <ErrorState
        title={`The ${label} screen could not be loaded.`}
        message="The service that provides it is not responding. The rest of the app still works; try again in a moment."
        onRetry={onRetry}
      />
    </Page>
  );
}

class RenderBoundary extends Component<
  { label: string; onRetry: () => void; children: ReactNode },
  { failed: Error | null }
> {
  state: { failed: Error | null } = { failed: null };
  static getDerivedStateFromError(error: unknown) {
    return { failed: error instanceof Error ? error : new Error(String(error)) };
  }
  componentDidCatch(error: unknown) {
    console.error(`[shell] the ${this.props.label} screen crashed`, error);
  }
  render() {
    const { failed } = this.state;
    if (!failed) return this.props.children;
    // A part of the screen fetched later (a tab's code) can be gone too.
    return isChunkGone(failed) ? (
      <RemoteReplaced label={this.props.label} />
    ) : (
      <RemoteUnavailable label={this.props.label} onRetry={this.props.onRetry} />
    );
  }
}
