/**
 * What a module's approval says when the load may go on (src/approval/store.ts makes it): the digest
 * its decision records carry, and what it pinned, by which its `pi.exec` is judged
 * (src/bridge/exec-pins.ts). Here, not in approval/, because options, the supervisor and the exec
 * gate carry it without depending on how approvals are kept.
 */
export interface Approved { digest: string; pinned?: ApprovedPins }
/** The project's folder and the files its approval pinned (path, or `link -> target`, to sha256). */
export interface ApprovedPins { project: string; files: Readonly<Record<string, string>> }
