import { useState, type FormEvent } from 'react';
import styled from 'styled-components';
import { Button, Input, media } from '@repex/shared-ui/ui';
import { draftOf, filtersOf, type FilterDraft } from './filterDraft';
import { NO_FILTERS, RANGES, type Filters, type RangeKey } from './query';

const Panel = styled.form`
  display: grid;
  grid-template-columns: repeat(3, minmax(0, 1fr));
  gap: 14px 16px;
  padding: 16px;
  margin-bottom: 16px;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radius.md};
  ${media.tablet} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
  }
  ${media.phone} {
    grid-template-columns: minmax(0, 1fr);
  }
  fieldset {
    border: 0;
    margin: 0;
    padding: 0;
    min-width: 0;
    display: flex;
    flex-direction: column;
    gap: 6px;
  }
  legend {
    padding: 0;
    margin-bottom: 6px;
    font-size: 13px;
    font-weight: 500;
    color: ${({ theme }) => theme.colors.muted};
  }
  .pair {
    display: grid;
    grid-template-columns: 1fr 1fr;
    gap: 8px;
  }
  .checks {
    display: flex;
    flex-wrap: wrap;
    gap: 6px 14px;
    font-size: 14px;
  }
  .checks label {
    display: flex;
    align-items: center;
    gap: 6px;
  }
  .error {
    margin: 0;
    color: #fca5a5;
    font-size: 13px;
  }
  .actions {
    grid-column: 1 / -1;
    display: flex;
    justify-content: flex-end;
    gap: 8px;
  }
`;

/**
 * Advanced Filters: ranges of the market's figures, verified only, halted hidden, and several
 * categories at once. Typed bounds apply together, and only when every one reads as a number.
 */
export function AdvancedFilters({
  filters,
  categories,
  onApply,
}: {
  filters: Filters;
  categories: string[];
  onApply: (filters: Filters) => void;
}) {
  const [draft, setDraft] = useState<FilterDraft>(() => draftOf(filters));
  const [errors, setErrors] = useState<Partial<Record<RangeKey, string>>>({});
  const change = (next: Partial<FilterDraft>) => setDraft({ ...draft, ...next });
  const setBound = (key: RangeKey, side: 'min' | 'max', value: string) =>
    change({ ranges: { ...draft.ranges, [key]: { ...draft.ranges[key], [side]: value } } });
  const toggleCategory = (c: string) =>
    change({
      categories: draft.categories.includes(c) ? draft.categories.filter((x) => x !== c) : [...draft.categories, c],
    });

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const result = filtersOf(draft);
    setErrors('errors' in result ? result.errors : {});
    if ('filters' in result) onApply(result.filters);
  };
  const clear = () => {
    setDraft(draftOf(NO_FILTERS));
    setErrors({});
    onApply(NO_FILTERS);
  };

  return (
    <Panel aria-label="Advanced Filters" onSubmit={apply} noValidate>
      {RANGES.map(({ key, label }) => (
        <fieldset key={key}>
          <legend>{label}</legend>
          <div className="pair">
            {(['min', 'max'] as const).map((side) => (
              <div key={side}>
                <Input
                  id={`filter-${key}-${side}`}
                  aria-label={`${label}, ${side === 'min' ? 'minimum' : 'maximum'}`}
                  inputMode="decimal"
                  placeholder={side === 'min' ? 'Min' : 'Max'}
                  value={draft.ranges[key][side]}
                  aria-invalid={!!errors[key]}
                  onChange={(e) => setBound(key, side, e.target.value)}
                />
              </div>
            ))}
          </div>
          {errors[key] && (
            <p className="error" role="alert">
              {errors[key]}
            </p>
          )}
        </fieldset>
      ))}
      <fieldset>
        <legend>Show</legend>
        <div className="checks">
          <label>
            <input
              type="checkbox"
              checked={draft.verifiedOnly}
              onChange={(e) => change({ verifiedOnly: e.target.checked })}
            />
            Verified only
          </label>
          <label>
            <input
              type="checkbox"
              checked={draft.hideHalted}
              onChange={(e) => change({ hideHalted: e.target.checked })}
            />
            Hide halted tokens
          </label>
        </div>
      </fieldset>
      <fieldset style={{ gridColumn: '1 / -1' }}>
        <legend>Categories</legend>
        <div className="checks">
          {categories.map((c) => (
            <label key={c}>
              <input type="checkbox" checked={draft.categories.includes(c)} onChange={() => toggleCategory(c)} />
              {c}
            </label>
          ))}
        </div>
      </fieldset>
      <div className="actions">
        <Button type="button" $variant="ghost" onClick={clear}>
          Clear all
        </Button>
        <Button type="submit">Apply Filters</Button>
      </div>
    </Panel>
  );
}
