import 'styled-components';
import type { Theme } from './theme';

declare module 'styled-components' {
  // Declaration merging: styled-components' theme type is ours (an interface is the only way to merge).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  export interface DefaultTheme extends Theme {}
}
