/** One look for every remote: provided once by the shell through ThemeProvider. */
export const theme = {
  colors: {
    bg: '#0b0f1a',
    surface: '#121829',
    surfaceRaised: '#182036',
    border: '#243049',
    text: '#e6ebf5',
    muted: '#8d9ab5',
    // White on these meets WCAG AA (4.5:1): #7c5cff did not (4.3).
    primary: '#6a48f5',
    primaryHover: '#5a38e5',
    primaryText: '#ffffff',
    accent: '#22d3ee',
    up: '#22c55e',
    down: '#ef4444',
    /** Solid backgrounds that carry white text (AA): a pressed Buy or Sell. */
    upSolid: '#15803d',
    downSolid: '#b91c1c',
    /** Red text on a tinted red background (AA). */
    downText: '#f87171',
    warning: '#f59e0b',
    destructive: '#dc2626',
  },
  radius: { sm: '6px', md: '10px', lg: '16px', full: '999px' },
  font: {
    body: "Inter, 'Segoe UI', system-ui, -apple-system, Roboto, Helvetica, Arial, sans-serif",
    mono: "'JetBrains Mono', ui-monospace, SFMono-Regular, Menlo, monospace",
  },
  breakpoints: { phone: '640px', tablet: '960px' },
  gradient: 'linear-gradient(135deg, #7c5cff 0%, #22d3ee 100%)',
} as const;

export type Theme = typeof theme;

/** Media query helper: `${media.phone} { ... }` applies at phone width and below. */
export const media = {
  phone: `@media (max-width: ${theme.breakpoints.phone})`,
  tablet: `@media (max-width: ${theme.breakpoints.tablet})`,
};
