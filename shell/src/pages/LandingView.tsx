import { Link } from 'react-router';
import styled from 'styled-components';
import { Button, Card, Logo, media } from '@repex/shared-ui/ui';

/** Fixed marketing figures of spec section 1. */
const FIGURES = [
  { value: '12,450+', label: 'Active Traders' },
  { value: '$2.4M', label: 'Total Volume' },
  { value: '8,920', label: 'Reputation Tokens' },
  { value: '94.2%', label: 'Success Rate' },
];

const STEPS = [
  { title: 'Sign Up', text: 'Create your account in a minute.' },
  { title: 'Connect Your Socials', text: 'Link your social accounts for AI reputation analysis.' },
  { title: 'Receive Your Tokens', text: 'Your reputation becomes a tradable token of your own.' },
  { title: 'Trade', text: 'Buy, sell and trade reputation tokens in the marketplace.' },
];

const Top = styled.header`
  max-width: 1200px;
  margin: 0 auto;
  padding: 20px;
  display: flex;
  align-items: center;
  justify-content: space-between;
`;
const Hero = styled.section`
  max-width: 900px;
  margin: 0 auto;
  padding: 72px 20px 48px;
  text-align: center;
  ${media.phone} {
    padding: 40px 20px 32px;
  }
`;
const Title = styled.h1`
  margin: 0 0 20px;
  font-size: 60px;
  line-height: 1.05;
  letter-spacing: -0.03em;
  ${media.phone} {
    font-size: 38px;
  }
`;
const Gradient = styled.span`
  background: ${({ theme }) => theme.gradient};
  -webkit-background-clip: text;
  background-clip: text;
  color: transparent;
`;
const Lead = styled.p`
  margin: 0 auto 32px;
  max-width: 640px;
  font-size: 19px;
  color: ${({ theme }) => theme.colors.muted};
  ${media.phone} {
    font-size: 16px;
  }
`;
const Actions = styled.div`
  display: flex;
  gap: 12px;
  justify-content: center;
  flex-wrap: wrap;
  ${media.phone} {
    flex-direction: column;
  }
`;
const Section = styled.section`
  max-width: 1200px;
  margin: 0 auto;
  padding: 24px 20px;
`;
const Grid = styled.div`
  display: grid;
  grid-template-columns: repeat(4, minmax(0, 1fr));
  gap: 16px;
  ${media.tablet} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
  }
  ${media.phone} {
    grid-template-columns: minmax(0, 1fr);
  }
`;
const Figure = styled(Card)`
  text-align: center;
  strong {
    display: block;
    font-size: 32px;
    letter-spacing: -0.02em;
  }
  span {
    color: ${({ theme }) => theme.colors.muted};
  }
`;
const Step = styled(Card)`
  h3 {
    margin: 8px 0 6px;
    font-size: 17px;
  }
  p {
    margin: 0;
    color: ${({ theme }) => theme.colors.muted};
  }
`;
const StepNo = styled.span`
  display: inline-flex;
  width: 32px;
  height: 32px;
  border-radius: 50%;
  align-items: center;
  justify-content: center;
  font-weight: 700;
  background: ${({ theme }) => theme.colors.surfaceRaised};
  color: ${({ theme }) => theme.colors.accent};
`;
const SectionTitle = styled.h2`
  text-align: center;
  font-size: 30px;
  margin: 32px 0 24px;
`;
const Cta = styled(Card)`
  text-align: center;
  padding: 48px 20px;
  margin: 24px 0 48px;
  background: linear-gradient(135deg, rgba(124, 92, 255, 0.18), rgba(34, 211, 238, 0.12));
  h2 {
    margin: 0 0 12px;
    font-size: 30px;
  }
  p {
    margin: 0 0 24px;
    color: ${({ theme }) => theme.colors.muted};
  }
`;
const Footer = styled.footer`
  text-align: center;
  padding: 24px;
  color: ${({ theme }) => theme.colors.muted};
  border-top: 1px solid ${({ theme }) => theme.colors.border};
  font-size: 14px;
`;

/**
 * The landing page of spec section 1, as a view of fixed content: the build writes it into
 * index.html (shell/src/prerender.tsx), so a visitor sees it before any JavaScript has run.
 */
export function LandingView() {
  return (
    <>
      <Top>
        <Logo />
        <Button as={Link} to="/auth" $variant="outline">
          Sign In
        </Button>
      </Top>
      <main>
        <Hero>
          <Title>
            The Future of <Gradient>Reputation Trading</Gradient>
          </Title>
          <Lead>
            Sign up, connect your social accounts for AI reputation analysis, receive tradable reputation tokens, then
            buy, sell and trade them in a live marketplace.
          </Lead>
          <Actions>
            <Button as={Link} to="/auth" $size="lg">
              Get Started
            </Button>
            <Button as={Link} to="/auth" $size="lg" $variant="outline">
              Explore Market
            </Button>
          </Actions>
        </Hero>
        <Section aria-label="Platform figures">
          <Grid>
            {FIGURES.map((f) => (
              <Figure key={f.label}>
                <strong>{f.value}</strong>
                <span>{f.label}</span>
              </Figure>
            ))}
          </Grid>
        </Section>
        <Section>
          <SectionTitle>How It Works</SectionTitle>
          <Grid>
            {STEPS.map((s, i) => (
              <Step key={s.title}>
                <StepNo>{i + 1}</StepNo>
                <h3>{s.title}</h3>
                <p>{s.text}</p>
              </Step>
            ))}
          </Grid>
          <Cta>
            <h2>Your reputation has value. Trade it.</h2>
            <p>Join thousands of traders on the first reputation exchange.</p>
            <Button as={Link} to="/auth" $size="lg">
              Start Trading Now
            </Button>
          </Cta>
        </Section>
      </main>
      <Footer>© 2026 RepX. Reputation, traded.</Footer>
    </>
  );
}
