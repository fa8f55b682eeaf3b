import { defaultNotificationSettings, notificationSettingsSchema, type NotificationSettings } from '../../shared/attention';
import type { SettingsRepository } from '../ledger/settings-repository';

/** Where the operator's notification settings live (console_settings). */
export const notificationSettingsKey = 'notifications.settings';

/**
 * The operator's notification settings as stored, over the defaults: a value written by another
 * version (an event it did not know, a field it lacked) keeps what it says and takes the defaults for
 * the rest; a value that is not settings at all gives the defaults.
 */
export function readNotificationSettings(settings: SettingsRepository): NotificationSettings {
  const stored = settings.read(notificationSettingsKey);
  if (!stored || typeof stored !== 'object') return structuredClone(defaultNotificationSettings);
  const value = stored as Partial<NotificationSettings>;
  const merged = {
    ...defaultNotificationSettings,
    ...value,
    events: { ...defaultNotificationSettings.events, ...(value.events && typeof value.events === 'object' ? value.events : {}) },
  };
  // Unknown keys (an event a later version added and this one dropped) are stripped by the parse.
  const parsed = notificationSettingsSchema.safeParse(merged);
  return parsed.success ? parsed.data : structuredClone(defaultNotificationSettings);
}

export function writeNotificationSettings(settings: SettingsRepository, value: NotificationSettings, at: number): NotificationSettings {
  const parsed = notificationSettingsSchema.parse(value);
  settings.write(notificationSettingsKey, parsed, at);
  return parsed;
}
