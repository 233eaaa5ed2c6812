import { act, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { SecretDialog } from '../../../src/screens/api-keys/secret-dialog';
import { polyfillModalDialogs } from '../../support/modal-dialogs';

beforeAll(polyfillModalDialogs);

const created = { id: 7, key: 'secret-0123456789abcdef', name: 'ci-deploy', created_at: '2026-11-22T12:00:00Z', created_by: 'u1' };

/** What the browser does on Escape in a modal dialog: a cancellable `cancel` event. */
function pressEscape(dialog: HTMLElement) {
  act(() => void dialog.dispatchEvent(new Event('cancel', { cancelable: true })));
}

describe('the one-time secret dialog', () => {
  it('asks before Escape throws the secret away, and Keep it open keeps it', async () => {
    const onClose = vi.fn();
    const user = userEvent.setup();
    render(<SecretDialog created={created} ownerLabel="Personal key" onClose={onClose} />);
    const dialog = screen.getByRole('dialog', { name: 'Key “ci-deploy” created' });

    pressEscape(dialog);
    expect(onClose).not.toHaveBeenCalled();
    const ask = within(dialog).getByRole('alert');
    expect(ask).toHaveTextContent('Close without the secret? It cannot be shown again.');
    expect(within(ask).getByRole('button', { name: 'Keep it open' })).toHaveFocus();
    await user.click(within(ask).getByRole('button', { name: 'Keep it open' }));
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    expect(within(dialog).getByRole<HTMLInputElement>('textbox', { name: 'Secret' }).value).toBe(created.key);

    // A click on the backdrop asks the same; confirming closes.
    fireEvent.click(dialog);
    await user.click(within(dialog).getByRole('button', { name: 'Close and lose the secret' }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes on Escape without asking once the secret was copied', async () => {
    const onClose = vi.fn();
    const user = userEvent.setup();
    render(<SecretDialog created={created} ownerLabel="Personal key" onClose={onClose} />);
    const dialog = screen.getByRole('dialog', { name: 'Key “ci-deploy” created' });
    await user.click(within(dialog).getByRole('button', { name: 'Copy' }));
    await within(dialog).findByRole('button', { name: 'Copied' });
    pressEscape(dialog);
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
