/**
 * On a phone each table row is shown as a card (styles.css), where a cell no longer sits under its
 * column's heading: each body cell carries that heading in `data-label` for the card to name it.
 */
export function labelTableCells(root: ParentNode): void {
  for (const table of root.querySelectorAll('table')) {
    const headings = [...table.querySelectorAll('thead th')].map((heading) => heading.textContent?.trim() ?? '');
    for (const row of table.querySelectorAll('tbody tr')) {
      [...row.children].forEach((cell, index) => {
        const label = headings[index];
        if (label && cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label);
      });
    }
  }
}

/** Keeps the tables under `root` labelled as pages redraw them; returns what stops it. */
export function keepTableCellsLabelled(root: HTMLElement): () => void {
  // Only added or removed nodes matter; the labels written here are attributes, so they do not call back.
  const observer = new MutationObserver(() => labelTableCells(root));
  observer.observe(root, { childList: true, subtree: true });
  labelTableCells(root);
  return () => observer.disconnect();
}
