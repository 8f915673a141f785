import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { ServerStyleSheet, ThemeProvider } from 'styled-components';
import { SESSION_PROBE } from '@repex/shared-ui/session-probe';
import { GlobalStyle, theme } from '@repex/shared-ui/ui';
import { LandingView } from './pages/LandingView';

const ROOT = '<div id="root"></div>';

/**
 * The shell's page with the landing page already in it, run by the build (scripts/webpack/config.ts)
 * to write index.html, which is served at / only: a first visitor sees the landing page at the
 * first paint, not after the JavaScript has loaded, run and read /config.json. When the app
 * starts, React renders the same page in its place. Every other address gets the page without it
 * (app.html), and a visitor with a stored session never sees it (SESSION_PROBE).
 */
export function withLandingPage(page: string): string {
  if (!page.includes(ROOT)) throw new Error(`The shell's page has no ${ROOT} to write the landing page into`);
  const sheet = new ServerStyleSheet();
  try {
    const html = renderToString(
      sheet.collectStyles(
        <ThemeProvider theme={theme}>
          <GlobalStyle />
          <StaticRouter location="/">
            <LandingView />
          </StaticRouter>
        </ThemeProvider>,
      ),
    );
    const head = `${sheet.getStyleTags()}<style>.signed-in #landing{display:none}</style><script>${SESSION_PROBE}</script>`;
    return page
      .replace('</head>', `${head}</head>`)
      .replace(ROOT, `<div id="root"><div id="landing">${html}</div></div>`);
  } finally {
    sheet.seal();
  }
}
