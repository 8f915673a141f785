import styled from 'styled-components';
import { Button } from '@repex/shared-ui/ui';

const Bar = styled.div`
  position: fixed;
  left: 50%;
  bottom: 16px;
  transform: translateX(-50%);
  z-index: 40;
  display: flex;
  align-items: center;
  gap: 12px;
  padding: 10px 12px 10px 16px;
  width: max-content;
  max-width: calc(100vw - 24px);
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radius.md};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  box-shadow: 0 12px 32px rgba(0, 0, 0, 0.45);
  font-size: 14px;
`;

/** "A new version is available: Reload", for the user to take when it suits them. */
export function NewReleaseNotice() {
  return (
    <Bar role="status" data-testid="new-release">
      <span>A new version is available.</span>
      <Button $size="sm" onClick={() => window.location.reload()}>
        Reload
      </Button>
    </Bar>
  );
}
