import { Field } from './Dialog';
import { Select } from './Input';

/**
 * Which authenticator app the code comes from, for a user who keeps a backup app; nothing for a
 * user with one (the auth server checks a code against one app).
 */
export function AppChoice({
  id,
  apps,
  value,
  onChange,
}: {
  id: string;
  apps: { id: string; name: string }[];
  value: string | undefined;
  onChange: (id: string) => void;
}) {
  if (apps.length < 2) return null;
  return (
    <Field label="Authenticator app" htmlFor={id}>
      <Select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {apps.map((app) => (
          <option key={app.id} value={app.id}>
            {app.name}
          </option>
        ))}
      </Select>
    </Field>
  );
}
