import type { ComponentChildren } from 'preact';

/**
 * A switch the user reads before ticking: a checkbox with its label, and the hint under it that
 * the box names as its description (screen readers read it with the box). `warn` marks a hint
 * that warns (a cost, something sent away).
 */
export function CheckWithHint(props: {
  id: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: ComponentChildren;
  hint: ComponentChildren;
  warn?: boolean;
  disabled?: boolean;
}) {
  const hintId = `${props.id}-hint`;
  return (
    <>
      <label class="check">
        <input
          type="checkbox"
          id={props.id}
          checked={props.checked}
          disabled={props.disabled}
          aria-describedby={hintId}
          onChange={(event) => props.onChange((event.currentTarget as HTMLInputElement).checked)}
        />
        {props.label}
      </label>
      <p class={props.warn ? 'hint warn-text' : 'hint'} id={hintId}>
        {props.hint}
      </p>
    </>
  );
}
