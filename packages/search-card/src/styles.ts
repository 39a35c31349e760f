// The card's look: every colour and font a CSS custom property, light by default, dark by preference or `theme="dark"`.
import { css } from 'lit'

// The dark palette, used by preference (unless `theme="light"`) and by `theme="dark"`.
const darkColours = css`
  --_bg: var(--dsh-card-bg, #0d1117);
  --_fg: var(--dsh-card-fg, #e6edf3);
  --_muted: var(--dsh-card-muted, #9198a1);
  --_border: var(--dsh-card-border, #3d444d);
  --_header-bg: var(--dsh-card-header-bg, #151b23);
  --_hover: var(--dsh-card-hover, #212830);
  --_accent: var(--dsh-card-accent, #4493f8);
  --_mark-bg: var(--dsh-card-mark-bg, #5c4a00);
  --_warn: var(--dsh-card-warn, #d29922);
`

/** The card's styles. Themable from outside through the `--dsh-card-*` custom properties. */
export const cardStyles = css`
  :host {
    --_bg: var(--dsh-card-bg, #ffffff);
    --_fg: var(--dsh-card-fg, #1f2328);
    --_muted: var(--dsh-card-muted, #59636e);
    --_border: var(--dsh-card-border, #d1d9e0);
    --_header-bg: var(--dsh-card-header-bg, #f6f8fa);
    --_hover: var(--dsh-card-hover, #eef2f6);
    --_accent: var(--dsh-card-accent, #0969da);
    --_mark-bg: var(--dsh-card-mark-bg, #fff1a8);
    --_mark-fg: var(--dsh-card-mark-fg, inherit);
    --_warn: var(--dsh-card-warn, #9a6700);
    display: block;
    color: var(--_fg);
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--dsh-card-radius, 8px);
    font-family: var(--dsh-card-font, system-ui, -apple-system, 'Segoe UI', sans-serif);
    font-size: var(--dsh-card-font-size, 14px);
    overflow: hidden;
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${darkColours}
    }
  }
  :host([theme='dark']) {
    ${darkColours}
  }
  p {
    margin: 0;
  }
  .summary {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5em 1em;
    align-items: baseline;
    padding: 0.6em 0.9em;
    border-bottom: 1px solid var(--_border);
    background: var(--_header-bg);
  }
  .count {
    font-weight: 600;
  }
  .truncated,
  .incomplete {
    color: var(--_warn);
  }
  .empty {
    padding: 0.9em;
    color: var(--_muted);
  }
  ul {
    list-style: none;
    margin: 0;
    padding: 0;
  }
  .file + .file {
    border-top: 1px solid var(--_border);
  }
  .file-header {
    display: flex;
    align-items: center;
    gap: 0.25em;
    padding: 0.2em 0.5em;
  }
  button {
    font: inherit;
    color: inherit;
    background: none;
    border: 0;
    border-radius: 4px;
    margin: 0;
    text-align: start;
    cursor: pointer;
  }
  button:hover {
    background: var(--_hover);
  }
  button:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: -2px;
  }
  .toggle {
    width: 1.6em;
    padding: 0.2em 0;
    color: var(--_muted);
    text-align: center;
  }
  .toggle::before {
    content: '▾';
  }
  .file[data-collapsed] .toggle::before {
    content: '▸';
  }
  .path {
    flex: 1;
    padding: 0.25em 0.4em;
    font-family: var(--dsh-card-mono, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace);
    color: var(--_accent);
    overflow-wrap: anywhere;
  }
  .badge {
    color: var(--_muted);
    font-size: 0.85em;
    padding: 0 0.4em;
  }
  .lines {
    padding-bottom: 0.3em;
  }
  .line {
    display: grid;
    grid-template-columns: 4.5em 1fr;
    width: 100%;
    padding: 0.1em 0.5em 0.1em 0;
    border-radius: 0;
    font-family: var(--dsh-card-mono, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace);
    font-size: 0.92em;
  }
  .number {
    padding-inline-end: 1em;
    color: var(--_muted);
    text-align: end;
    user-select: none;
  }
  .text {
    white-space: pre-wrap;
    overflow-wrap: anywhere;
  }
  mark {
    background: var(--_mark-bg);
    color: var(--_mark-fg);
    border-radius: 2px;
  }
  .paths .path {
    display: block;
    width: 100%;
    padding: 0.3em 0.9em;
    border-radius: 0;
  }
`
