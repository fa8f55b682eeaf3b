import { notificationSettingsSchema } from '../attention';
import { channel, noInput } from './channel';

/** Desktop notifications: which events notify, quiet while focused, sound. */

export const attentionChannels = {
  getNotificationSettings: channel(noInput, notificationSettingsSchema),
  setNotificationSettings: channel(notificationSettingsSchema.strict(), notificationSettingsSchema),
} as const;
