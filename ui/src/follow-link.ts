/**
 * A click handler for a dashboard link (`href` under `/ui/`): the page changes without a reload,
 * while a modified or middle click (a new tab, a new window) is left to the browser.
 */
export function followLink(navigate: (url: string) => void): (event: MouseEvent) => void {
  return (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate((event.currentTarget as HTMLAnchorElement).getAttribute('href')!);
  };
}
