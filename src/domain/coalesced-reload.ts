/**
 * A reload that never runs twice at once: a call while one runs is answered by that run, which then loads once more,
 * so a change announced mid-load is never missed and a burst of announcements costs two loads, not one each. The
 * in-memory views reloaded on change (webhook endpoints, alert rules) share it.
 */
export function coalescedReload(load: () => Promise<void>): () => Promise<void> {
  let loading: Promise<void> | undefined;
  let again = false;
  return () => {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      try {
        do {
          again = false;
          await load();
        } while (again);
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  };
}
