import styled from 'styled-components';

/** User Management's styles (Users.tsx is its view). */
export const Actions = styled.div`
  display: flex;
  gap: 6px;
  flex-wrap: wrap;
`;
export const Badges = styled.div`
  display: flex;
  gap: 4px;
  flex-wrap: wrap;
`;

export const Toolbar = styled.div`
  display: flex;
  gap: 8px;
  flex-wrap: wrap;
  margin-bottom: 12px;
  input {
    flex: 1;
    min-width: 200px;
  }
  select {
    width: auto;
    min-width: 150px;
  }
`;
