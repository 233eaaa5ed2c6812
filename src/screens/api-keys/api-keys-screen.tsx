export function ApiKeysScreen() {
  return (
    <section>
      <h1 tabIndex={-1}>API keys</h1>
    </section>
  );
}
