import styled, { css } from 'styled-components';
import type { Side } from './orderMath';

/** The order panel's styles (OrderPanel.tsx is its view). */
export const Toggle = styled.div<{ $columns?: number }>`
  display: grid;
  grid-template-columns: repeat(${({ $columns }) => $columns ?? 2}, 1fr);
  gap: 4px;
  padding: 4px;
  border-radius: ${({ theme }) => theme.radius.md};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  margin-bottom: 14px;
`;
export const ToggleButton = styled.button.attrs({ type: 'button' })<{ $active: boolean; $tone?: Side }>`
  border: 0;
  height: 36px;
  border-radius: ${({ theme }) => theme.radius.sm};
  font-weight: 700;
  cursor: pointer;
  color: ${({ theme }) => theme.colors.muted};
  background: transparent;
  ${({ $active, $tone, theme }) =>
    $active &&
    css`
      color: #fff;
      background: ${$tone === 'buy' ? theme.colors.upSolid : $tone === 'sell' ? theme.colors.downSolid : theme.colors.bg};
    `}
`;
export const AmountRow = styled.div`
  display: grid;
  grid-template-columns: 40px 1fr 40px;
  gap: 6px;
`;
/** Tokens or dollars: a small switch beside the amount's label. */
export const UnitSwitch = styled.div`
  float: right;
  margin-top: -26px;
  display: inline-flex;
  gap: 2px;
  padding: 2px;
  border-radius: ${({ theme }) => theme.radius.sm};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  button {
    border: 0;
    background: transparent;
    color: ${({ theme }) => theme.colors.muted};
    font-size: 12px;
    font-weight: 600;
    padding: 3px 8px;
    border-radius: ${({ theme }) => theme.radius.sm};
    cursor: pointer;
  }
  button[aria-pressed='true'] {
    background: ${({ theme }) => theme.colors.bg};
    color: ${({ theme }) => theme.colors.text};
  }
`;
export const Warning = styled.p`
  margin: 6px 0 0;
  padding: 8px 10px;
  border-radius: ${({ theme }) => theme.radius.sm};
  border: 1px solid ${({ theme }) => theme.colors.warning};
  color: ${({ theme }) => theme.colors.text};
  font-size: 13px;
`;
export const Presets = styled.div`
  display: flex;
  gap: 6px;
  margin-top: 6px;
`;
export const Shortcuts = styled.div`
  display: grid;
  grid-template-columns: repeat(4, 1fr);
  gap: 6px;
  margin: 8px 0 14px;
`;
export const Lines = styled.dl`
  margin: 0 0 14px;
  display: grid;
  grid-template-columns: 1fr auto;
  gap: 6px;
  font-size: 14px;
  dt {
    color: ${({ theme }) => theme.colors.muted};
  }
  dd {
    margin: 0;
    text-align: right;
    font-variant-numeric: tabular-nums;
  }
  .total {
    font-weight: 700;
    font-size: 16px;
  }
`;
export const Field = styled.div`
  margin-bottom: 14px;
`;
export const Confirm = styled.div`
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radius.md};
  padding: 14px;
  margin-bottom: 14px;
  background: ${({ theme }) => theme.colors.surfaceRaised};
  p {
    margin: 0 0 10px;
  }
`;
export const Row = styled.div`
  display: grid;
  grid-template-columns: 1fr 1fr;
  gap: 8px;
`;
export const Note = styled.p`
  margin: 6px 0 0;
  color: ${({ theme }) => theme.colors.muted};
  font-size: 13px;
`;
export const FieldError = styled.p`
  margin: 6px 0 0;
  color: ${({ theme }) => theme.colors.down};
  font-size: 13px;
`;
export const Check = styled.label`
  display: flex;
  align-items: center;
  gap: 8px;
  font-size: 14px;
  margin-bottom: 14px;
  cursor: pointer;
  input {
    width: 18px;
    height: 18px;
    accent-color: ${({ theme }) => theme.colors.primary};
  }
`;
export const Plan = styled.p`
  margin: 0 0 14px;
  padding: 10px 12px;
  border-radius: ${({ theme }) => theme.radius.md};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  font-size: 14px;
  line-height: 1.45;
`;
