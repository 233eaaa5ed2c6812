import { CopyButton } from '../../components/copy-button';
import { apiBaseForCommands } from '../../config/api-target';
import { curlCommand, neonctlCommand, type ApiRead } from '../../lib/shell-commands';

/** The read behind this page as a terminal command, with $NEON_API_KEY where the key goes. */
export function OperationCommands({ projectId, operationId }: { projectId: string; operationId: string }) {
  // Built at the click: the base reads the page's origin, which a server render does not have.
  const read = (): ApiRead => ({
    base: apiBaseForCommands(),
    path: `/projects/${encodeURIComponent(projectId)}/operations/${encodeURIComponent(operationId)}`,
  });
  return (
    <div className="copy-commands" role="group" aria-label="This operation as a command">
      <CopyButton label="Copy as curl" text={() => curlCommand(read())} />
      <CopyButton label="Copy as neonctl" text={() => neonctlCommand(read())} />
      <span className="muted small">Set NEON_API_KEY in your shell first: the commands never contain a key.</span>
    </div>
  );
}
