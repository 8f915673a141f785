import styled, { css } from 'styled-components';

export type ButtonVariant = 'default' | 'destructive' | 'outline' | 'secondary' | 'ghost' | 'link';
export type ButtonSize = 'default' | 'sm' | 'lg' | 'icon';

const sizes: Record<ButtonSize, ReturnType<typeof css>> = {
  default: css`
    height: 40px;
    padding: 0 16px;
  `,
  sm: css`
    height: 32px;
    padding: 0 12px;
    font-size: 13px;
  `,
  lg: css`
    height: 48px;
    padding: 0 28px;
    font-size: 16px;
  `,
  icon: css`
    height: 40px;
    width: 40px;
    padding: 0;
  `,
};

const variants: Record<ButtonVariant, ReturnType<typeof css>> = {
  default: css`
    background: ${({ theme }) => theme.colors.primary};
    color: ${({ theme }) => theme.colors.primaryText};
    &:hover:not(:disabled) {
      background: ${({ theme }) => theme.colors.primaryHover};
    }
  `,
  destructive: css`
    background: ${({ theme }) => theme.colors.destructive};
    color: #fff;
    &:hover:not(:disabled) {
      filter: brightness(1.1);
    }
  `,
  outline: css`
    background: transparent;
    color: ${({ theme }) => theme.colors.text};
    border-color: ${({ theme }) => theme.colors.border};
    &:hover:not(:disabled) {
      background: ${({ theme }) => theme.colors.surfaceRaised};
    }
  `,
  secondary: css`
    background: ${({ theme }) => theme.colors.surfaceRaised};
    color: ${({ theme }) => theme.colors.text};
    &:hover:not(:disabled) {
      filter: brightness(1.2);
    }
  `,
  ghost: css`
    background: transparent;
    color: ${({ theme }) => theme.colors.text};
    &:hover:not(:disabled) {
      background: ${({ theme }) => theme.colors.surfaceRaised};
    }
  `,
  link: css`
    background: transparent;
    color: ${({ theme }) => theme.colors.accent};
    padding-left: 0;
    padding-right: 0;
    &:hover:not(:disabled) {
      text-decoration: underline;
    }
  `,
};

/** Button with the six variants and four sizes of spec section 9. */
export const Button = styled.button.attrs<{ type?: string; as?: unknown }>((p) =>
  // A button that submits nothing unless told; one rendered as a link (as={Link}) takes no type.
  p.as ? {} : { type: p.type ?? 'button' },
)<{
  $variant?: ButtonVariant;
  $size?: ButtonSize;
  $block?: boolean;
}>`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: 8px;
  border: 1px solid transparent;
  border-radius: ${({ theme }) => theme.radius.sm};
  font-weight: 600;
  white-space: nowrap;
  text-decoration: none;
  cursor: pointer;
  transition:
    background 120ms,
    filter 120ms;
  ${({ $block }) =>
    $block &&
    css`
      width: 100%;
    `}
  ${({ $size = 'default' }) => sizes[$size]}
  ${({ $variant = 'default' }) => variants[$variant]}
  &:disabled {
    opacity: 0.5;
    cursor: not-allowed;
  }
`;
