import styled from 'styled-components';

const Mark = styled.span`
  display: inline-flex;
  align-items: center;
  gap: 10px;
  font-weight: 800;
  font-size: 20px;
  letter-spacing: -0.02em;
`;
const Square = styled.span`
  width: 32px;
  height: 32px;
  border-radius: 8px;
  background: ${({ theme }) => theme.gradient};
  display: inline-flex;
  align-items: center;
  justify-content: center;
  color: #fff;
  font-size: 16px;
`;

export function Logo() {
  return (
    <Mark>
      <Square aria-hidden="true">R</Square>
      RepX
    </Mark>
  );
}
