import { Skeleton } from './Skeleton';

/** Table rows of placeholders with the row height of real rows, so nothing jumps on load. */
export function SkeletonRows({ rows, columns }: { rows: number; columns: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} aria-hidden="true">
          {Array.from({ length: columns }, (_, c) => (
            <td key={c} style={{ height: 61 }}>
              <Skeleton $width={c === 0 ? '140px' : '60px'} />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}
