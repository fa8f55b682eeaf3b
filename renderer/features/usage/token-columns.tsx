import type { TokenCounts } from '../../../shared/usage';
import { formatTokens } from './usage-format';

/** The four token columns every usage table shows, in one order: their headings. */
export function TokenColumnHeads() {
  return (
    <>
      <th scope="col" className="numeric">
        Input
      </th>
      <th scope="col" className="numeric">
        Cached input
      </th>
      <th scope="col" className="numeric">
        Output
      </th>
      <th scope="col" className="numeric">
        Reasoning
      </th>
    </>
  );
}

/** The four token columns' cells for one row. */
export function TokenCells({ tokens }: { tokens: TokenCounts }) {
  return (
    <>
      <td className="numeric">{formatTokens(tokens.input)}</td>
      <td className="numeric">{formatTokens(tokens.cachedInput)}</td>
      <td className="numeric">{formatTokens(tokens.output)}</td>
      <td className="numeric">{formatTokens(tokens.reasoning)}</td>
    </>
  );
}
