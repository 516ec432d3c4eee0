import { approvalsExtensions } from './api.ts';
import { coreRefs, createServiceRef, definePlugin, type SealPurposeContext } from '../../core/index.ts';
import { FormsService } from './forms.service.ts';
import { InstancesService } from './instances.service.ts';
import { LineResolver } from './line-resolver.ts';
import { APPROVAL_STAMP_PURPOSE, isOtherStampInstance, StampBinding } from './stamp-binding.ts';
import { StampsService } from './stamps.service.ts';
import { SecondDeviceService } from './second-device.service.ts';
import { SecondDeviceSettingsService } from './second-device-settings.service.ts';
import { SECOND_DEVICE_LINK_REQUESTS_PER_IP, secondDeviceRoutes } from './routes/second-device.route.ts';
import { settingsRoutes } from './routes/settings.route.ts';
import { formRoutes } from './routes/forms.route.ts';
import { instanceRoutes } from './routes/instances.route.ts';
import './errors.ts';

const formsRef = createServiceRef<FormsService>('approvals.forms');
const resolverRef = createServiceRef<LineResolver>('approvals.lineResolver');
const instancesRef = createServiceRef<InstancesService>('approvals.instances');
const stampsRef = createServiceRef<StampsService>('approvals.stamps');
const bindingRef = createServiceRef<StampBinding>('approvals.stampBinding');
const secondDeviceRef = createServiceRef<SecondDeviceService>('approvals.secondDevice');
const settingsRef = createServiceRef<SecondDeviceSettingsService>('approvals.secondDeviceSettings');

export default definePlugin({
  id: 'approvals',
  deps: { forms: formsRef, instances: instancesRef, stamps: stampsRef, binding: bindingRef, secondDevice: secondDeviceRef, settings: settingsRef, seals: coreRefs.seals, rateLimits: coreRefs.rateLimits },
  register(reg) {
    reg.extensionPoint(approvalsExtensions.attachmentStore);
    reg.service(formsRef, FormsService);
    reg.service(resolverRef, LineResolver);
    reg.service(instancesRef, InstancesService);
    reg.service(stampsRef, StampsService);
    reg.service(bindingRef, StampBinding);
    reg.service(secondDeviceRef, SecondDeviceService);
    reg.service(settingsRef, SecondDeviceSettingsService);
  },
  init({ forms, instances, stamps, binding, secondDevice, settings, seals, rateLimits }, ctx) {
    // The content-bound purpose: the kernel fixes its key order; this plugin reads the fields and
    // says that a seal for another instance is other content (403), not a wrong seal (401).
    seals.purposes.register<SealPurposeContext>({
      ...APPROVAL_STAMP_PURPOSE, buildFields: (input) => binding.fields(input), otherContent: isOtherStampInstance,
    });
    ctx.routes(
      ...formRoutes(forms, instances), ...instanceRoutes(forms, instances, stamps),
      ...settingsRoutes(settings),
      ...secondDeviceRoutes(secondDevice, stamps, rateLimits.limiter({ name: 'approvals.second-device-links', ...SECOND_DEVICE_LINK_REQUESTS_PER_IP })),
    );
  },
});
