import { coreRefs, definePlugin } from '../../core/index.ts';
import { approvalsExtensions } from '../approvals/api.ts';
import { keysExtensions } from '../keys/api.ts';
import { filesExtensions } from './api.ts';
import { approvalAttachments } from './approval-attachments.ts';
import { FilesService } from './files.service.ts';
import { filesRefs } from './internal-refs.ts';
import { lifecycleJob, scheduleLifecycle } from './lifecycle-job.ts';
import { LifecycleService } from './lifecycle.service.ts';
import { purgeJob } from './purge.ts';
import { lifecycleRoutes } from './routes/lifecycle.route.ts';
import { consoleRoutes } from './routes/console.route.ts';
import { fileRoutes } from './routes/files.route.ts';
import { SHARE_OPENS_PER_IP, shareRoutes } from './routes/share.route.ts';
import { storageRoutes } from './routes/storage.route.ts';
import { viewerRoutes } from './routes/viewer.route.ts';
import { SharesService } from './shares.service.ts';
import { SharingPolicyService } from './sharing-policy.service.ts';
import { sharingPolicyRoutes } from './routes/sharing-policy.route.ts';
import { StorageService } from './storage.service.ts';
import './errors.ts';

export default definePlugin({
  id: 'files',
  deps: {
    files: filesRefs.files, lifecycle: filesRefs.lifecycle, shares: filesRefs.shares, sharingPolicy: filesRefs.sharingPolicy, storage: filesRefs.storage,
    db: coreRefs.db, blob: coreRefs.blob, clock: coreRefs.clock, audit: coreRefs.audit, jobs: coreRefs.jobs, rateLimits: coreRefs.rateLimits, authz: coreRefs.authz,
  },
  register(reg) {
    reg.extensionPoint(filesExtensions.meetings);
    reg.service(filesRefs.storage, StorageService);
    reg.service(filesRefs.files, FilesService);
    reg.service(filesRefs.shares, SharesService);
    reg.service(filesRefs.lifecycle, LifecycleService);
    reg.service(filesRefs.sharingPolicy, SharingPolicyService);
  },
  init({ files, lifecycle, shares, sharingPolicy, storage, db, blob, clock, audit, jobs, rateLimits, authz }, ctx) {
    jobs.define(purgeJob({ db, blob, clock, audit, jobs, storage }));
    jobs.define(lifecycleJob({ db, clock, lifecycle }));
    scheduleLifecycle({ db, clock, jobs });
    // With the approvals plugin, documents take their attachments from the file box (sealed there).
    ctx.extend(approvalsExtensions.attachmentStore, approvalAttachments(audit));
    // One budget for both ways of opening a link: the JSON route and the viewer page.
    const shareOpens = rateLimits.limiter({ name: 'files.share-open', ...SHARE_OPENS_PER_IP });
    const directories = { meetings: ctx.extensions(filesExtensions.meetings), appGroups: ctx.extensions(keysExtensions.appGroups) };
    ctx.routes(...consoleRoutes(files, shares, authz, directories), ...fileRoutes(files), ...storageRoutes(storage), ...lifecycleRoutes(lifecycle), ...sharingPolicyRoutes(sharingPolicy), ...shareRoutes(shares, shareOpens), ...viewerRoutes(shares, shareOpens));
  },
});
