// The viewer's only script (served as /assets/client.js): keyboard navigation, filters that apply
// on change, and live updates of a run in progress. Every page works without it.

const typing = (e: KeyboardEvent) => {
  const t = e.target as HTMLElement | null;
  return Boolean(t && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(t.tagName)));
};

function follow(selector: string): void {
  const a = document.querySelector<HTMLAnchorElement>(selector);
  if (a) location.href = a.href;
}

// ---- a list of links (runs, trials) walked with j/k; Enter opens the focused one ----
let selected = -1;
const navItems = () => [...document.querySelectorAll<HTMLAnchorElement>('[data-nav-item]')];

function markSelected(items: HTMLAnchorElement[]): void {
  items.forEach((a, i) => {
    a.closest('tr')?.classList.toggle('selected', i === selected);
  });
}

function select(i: number): void {
  const items = navItems();
  if (!items.length) return;
  selected = Math.max(0, Math.min(items.length - 1, i));
  markSelected(items);
  items[selected].focus();
  items[selected].scrollIntoView({ block: 'nearest' });
}

document.addEventListener('keydown', (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey || typing(e)) return;
  const help = document.getElementById('keys') as HTMLDialogElement | null;
  const onTrial = document.body.dataset.page === 'trial';
  let handled = true;
  if (e.key === '?') {
    if (help?.open) help.close();
    else help?.showModal();
  } else if (onTrial && (e.key === 'j' || e.key === 'ArrowRight')) follow('a[rel="next"]');
  else if (onTrial && (e.key === 'k' || e.key === 'ArrowLeft')) follow('a[rel="prev"]');
  else if (!onTrial && e.key === 'j') select(selected + 1);
  else if (!onTrial && e.key === 'k') select(selected - 1);
  else if (e.key === 'u') {
    if (onTrial) follow('a[rel="up"]');
    else if (location.pathname !== '/') location.href = '/';
  } else if (e.key === '/') document.querySelector<HTMLElement>('#filters select')?.focus();
  else handled = false;
  if (handled) e.preventDefault();
});

// ---- filters: apply on change; empty selects stay out of the URL ----
for (const form of document.querySelectorAll<HTMLFormElement>('form.filters')) {
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === 'string' && v) q.set(k, v);
    const s = q.toString();
    location.href = `${form.action.split('?')[0]}${s ? `?${s}` : ''}#trials`;
  });
  for (const sel of form.querySelectorAll('select[data-autosubmit]'))
    sel.addEventListener('change', () => form.requestSubmit());
}

// ---- live: the server says when a trial finished; the marked regions are refetched ----
const liveSrc = document.body.dataset.liveSrc;
if (liveSrc) {
  const events = new EventSource(liveSrc);
  let busy = false;
  let again = false;
  const refresh = async (): Promise<void> => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const res = await fetch(location.href, { headers: { accept: 'text/html' } });
      if (!res.ok) return;
      const fresh = new DOMParser().parseFromString(await res.text(), 'text/html');
      for (const el of document.querySelectorAll<HTMLElement>('[data-live][id]')) {
        const next = fresh.getElementById(el.id);
        if (next) el.replaceWith(document.adoptNode(next));
      }
      if (selected >= 0) markSelected(navItems());
      document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed ?? 0) + 1);
      if (!fresh.body.dataset.liveSrc) events.close(); // the run is over
    } finally {
      busy = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  };
  events.addEventListener('progress', () => void refresh());
  events.addEventListener('end', () => {
    events.close();
    void refresh();
  });
}
