/**
 * Small inline SVG icons (16×16, currentColor), so they stay crisp at any zoom and follow the
 * light or dark colours. Decorative: the buttons that hold them carry the words (aria-label).
 * Each is its own export so the content script bundles only the ones the panel uses.
 */
import type { ComponentChildren } from 'preact';

const svg = (children: ComponentChildren) => (
  <svg
    class="icon"
    viewBox="0 0 16 16"
    width="16"
    height="16"
    aria-hidden="true"
    fill="none"
    stroke="currentColor"
    stroke-width="1.5"
    stroke-linecap="round"
    stroke-linejoin="round"
  >
    {children}
  </svg>
);

/** The extension's mark (the toolbar icon drawn by scripts/make-icons.py): a lens over two linked seeds. */
export const LogoIcon = () => (
  <svg class="logo" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
    <path d="M10.3 10.3 14 14" stroke="#1f6feb" stroke-width="2.2" stroke-linecap="round" />
    <circle cx="6.7" cy="6.7" r="4.6" fill="#ddf4ff" stroke="#1f6feb" stroke-width="1.6" />
    <path d="M5.3 7.4 8.1 6" stroke="#1a7f37" stroke-width=".7" />
    <circle cx="5.3" cy="7.4" r="1.05" fill="#1a7f37" />
    <circle cx="8.1" cy="6" r="1.05" fill="#1a7f37" />
  </svg>
);

export const CopyIcon = () =>
  svg(
    <>
      <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
      <path d="M10.5 3.5V3A1.5 1.5 0 0 0 9 1.5H3A1.5 1.5 0 0 0 1.5 3v6A1.5 1.5 0 0 0 3 10.5h.5" />
    </>,
  );

export const CheckIcon = () => svg(<path d="m3 8.5 3 3 7-7" />);

export const CloseIcon = () => svg(<path d="m4 4 8 8m0-8-8 8" />);

export const RefreshIcon = () => svg(<path d="M13.5 8a5.5 5.5 0 1 1-1.6-3.9M13.5 2v3h-3" />);

/** Open in a tab of its own (pop out). */
export const PopOutIcon = () => svg(<path d="M9 2.5h4.5V7M13.5 2.5 7.5 8.5M11.5 9.5v3a1 1 0 0 1-1 1h-7a1 1 0 0 1-1-1v-7a1 1 0 0 1 1-1h3" />);

export const SettingsIcon = () =>
  svg(
    <>
      <circle cx="8" cy="8" r="2.2" />
      <path d="M8 1.5v2M8 12.5v2M1.5 8h2M12.5 8h2M3.4 3.4l1.4 1.4M11.2 11.2l1.4 1.4M3.4 12.6l1.4-1.4M11.2 4.8l1.4-1.4" />
    </>,
  );

export const ChevronIcon = () => svg(<path d="m4 6 4 4 4-4" />);
