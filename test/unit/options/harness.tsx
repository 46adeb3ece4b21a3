/** Renders one section of the options page with the settings view kept as the page keeps it. */
import type { ComponentType } from 'preact';
import { useState } from 'preact/hooks';
import type { SettingsView } from '../../../features/settings/settings.messages';

export interface SectionProps {
  view: SettingsView;
  onSaved: (view: SettingsView) => void;
}

export function WithView({ initial, section: Section }: { initial: SettingsView; section: ComponentType<SectionProps> }) {
  const [view, setView] = useState(initial);
  return <Section view={view} onSaved={setView} />;
}
