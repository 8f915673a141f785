import styled from 'styled-components';

const Star = styled.button<{ $on: boolean }>`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 32px;
  height: 32px;
  border: 0;
  border-radius: 999px;
  background: transparent;
  cursor: pointer;
  color: ${({ $on, theme }) => ($on ? theme.colors.warning : theme.colors.muted)};
  &:hover {
    background: ${({ theme }) => theme.colors.surfaceRaised};
  }
  &:focus-visible {
    outline: 2px solid ${({ theme }) => theme.colors.primary};
  }
  svg {
    width: 18px;
    height: 18px;
  }
`;

/** The watchlist star: pressed when the token is watched. */
export function WatchStar({ on, name, onToggle }: { on: boolean; name: string; onToggle: () => void }) {
  return (
    <Star
      type="button"
      $on={on}
      aria-pressed={on}
      aria-label={on ? `Remove ${name} from watchlist` : `Add ${name} to watchlist`}
      title={on ? 'Remove from watchlist' : 'Add to watchlist'}
      onClick={onToggle}
      data-testid="watch-star"
    >
      <svg
        viewBox="0 0 24 24"
        aria-hidden="true"
        fill={on ? 'currentColor' : 'none'}
        stroke="currentColor"
        strokeWidth="2"
        strokeLinejoin="round"
      >
        <path d="M12 2.8l2.8 5.8 6.3.9-4.6 4.4 1.1 6.3L12 17.2l-5.6 3 1.1-6.3L2.9 9.5l6.3-.9z" />
      </svg>
    </Star>
  );
}
