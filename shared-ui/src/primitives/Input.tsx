import styled from 'styled-components';

const field = `
  width: 100%;
  height: 40px;
  padding: 0 12px;
  border-radius: 6px;
  outline: none;
`;

export const Input = styled.input`
  ${field}
  background: ${({ theme }) => theme.colors.bg};
  color: ${({ theme }) => theme.colors.text};
  border: 1px solid ${({ theme }) => theme.colors.border};
  &:focus {
    border-color: ${({ theme }) => theme.colors.primary};
  }
  &::placeholder {
    color: ${({ theme }) => theme.colors.muted};
  }
`;

export const Select = styled.select`
  ${field}
  background: ${({ theme }) => theme.colors.bg};
  color: ${({ theme }) => theme.colors.text};
  border: 1px solid ${({ theme }) => theme.colors.border};
  &:focus {
    border-color: ${({ theme }) => theme.colors.primary};
  }
`;

export const Label = styled.label`
  display: block;
  font-size: 13px;
  font-weight: 500;
  margin-bottom: 6px;
  color: ${({ theme }) => theme.colors.muted};
`;

export const Textarea = styled.textarea`
  width: 100%;
  min-height: 88px;
  padding: 10px 12px;
  border-radius: 6px;
  outline: none;
  resize: vertical;
  font: inherit;
  background: ${({ theme }) => theme.colors.bg};
  color: ${({ theme }) => theme.colors.text};
  border: 1px solid ${({ theme }) => theme.colors.border};
  &:focus {
    border-color: ${({ theme }) => theme.colors.primary};
  }
`;
