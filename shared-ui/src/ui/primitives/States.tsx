import type { ComponentProps, ReactNode } from 'react';
import styled from 'styled-components';
import { Button } from './Button';

const Box = styled.div`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: 12px;
  padding: 40px 16px;
  text-align: center;
  color: ${({ theme }) => theme.colors.muted};
`;
const Heading = styled.p`
  margin: 0;
  font-weight: 600;
  color: ${({ theme }) => theme.colors.text};
`;

export function EmptyState({ children }: { children: ReactNode }) {
  return <Box data-testid="empty-state">{children}</Box>;
}

/** A failure: a message, and a Retry button when trying again can help. */
export function ErrorState({
  title,
  message,
  onRetry,
  retryLabel = 'Retry',
}: {
  title: string;
  message?: string;
  onRetry?: () => void;
  retryLabel?: string;
}) {
  return (
    <Box role="alert">
      <Heading>{title}</Heading>
      {message && <span>{message}</span>}
      {onRetry && (
        <Button $variant="outline" onClick={onRetry}>
          {retryLabel}
        </Button>
      )}
    </Box>
  );
}

/** A whole-page centred status line, e.g. 'Loading...' while the session is read. */
export const CenteredStatus = styled.div`
  min-height: 50vh;
  display: flex;
  align-items: center;
  justify-content: center;
  color: ${({ theme }) => theme.colors.muted};
  font-weight: 500;
`;

const PageFrame = styled.main`
  max-width: 1200px;
  margin: 0 auto;
  padding: 24px 20px 48px;
  display: flex;
  flex-direction: column;
  gap: 24px;
`;

/**
 * A screen's frame, stamped with the build that compiled it (data-build). The UI kit is bundled
 * into each package, so a remote redeployed alone shows its own build here, shell untouched.
 */
export function Page(props: ComponentProps<typeof PageFrame>) {
  return <PageFrame data-build={__BUILD_ID__} {...props} />;
}

export const PageTitle = styled.h1`
  margin: 0;
  font-size: 28px;
  font-weight: 700;
`;

export const Muted = styled.span`
  color: ${({ theme }) => theme.colors.muted};
`;

export const Change = styled.span<{ $value: number }>`
  color: ${({ $value, theme }) => ($value > 0 ? theme.colors.up : $value < 0 ? theme.colors.down : theme.colors.muted)};
  font-weight: 600;
`;
