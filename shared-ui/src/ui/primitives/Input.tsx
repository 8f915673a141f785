import styled, { css } from 'styled-components';
import { media } from '../theme';

/** What every form control shares: the themed box, and its border lit while focused. */
const control = css`
  width: 100%;
  border-radius: 6px;
  outline: none;
  background: ${({ theme }) => theme.colors.bg};
  color: ${({ theme }) => theme.colors.text};
  border: 1px solid ${({ theme }) => theme.colors.border};
  &:focus {
    border-color: ${({ theme }) => theme.colors.primary};
  }
`;

export const Input = styled.input`
  ${control}
  height: 40px;
  padding: 0 12px;
  &::placeholder {
    color: ${({ theme }) => theme.colors.muted};
  }
  /* At a label's size, a long hint (the market's search) fits a phone's field whole; typed text keeps its size. */
  ${media.phone} {
    &::placeholder {
      font-size: 13px;
    }
  }
`;

export const Select = styled.select`
  ${control}
  height: 40px;
  padding: 0 12px;
`;

export const Label = styled.label`
  display: block;
  font-size: 13px;
  font-weight: 500;
  margin-bottom: 6px;
  color: ${({ theme }) => theme.colors.muted};
`;

export const Textarea = styled.textarea`
  ${control}
  min-height: 88px;
  padding: 10px 12px;
  resize: vertical;
  font: inherit;
`;
