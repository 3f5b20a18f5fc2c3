import type { ErrorDetail } from '../errors';
import type { ModelAttachment } from './providers';

/** Each attachment must decode to fewer bytes than this ("under about 11 MB"). */
export const MAX_ATTACHMENT_BYTES = 11 * 1024 * 1024;

export interface AttachmentInput {
  name?: string;
  mimeType?: string;
  data: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

function startsWith(bytes: Uint8Array, signature: number[], offset = 0): boolean {
  return signature.every((byte, i) => bytes[offset + i] === byte);
}

/** The MIME type told by the first bytes, or `application/octet-stream`. */
export function sniffMimeType(head: Uint8Array): string {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, [0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf';
  return 'application/octet-stream';
}

function head(base64: string): Uint8Array {
  const binary = atob(base64.slice(0, 16));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** Checks every attachment (non-empty, valid base64, size) and fills in missing MIME types; problems as details. */
export function prepareAttachments(inputs: AttachmentInput[]): { attachments: ModelAttachment[]; details: ErrorDetail[] } {
  const attachments: ModelAttachment[] = [];
  const details: ErrorDetail[] = [];
  inputs.forEach((input, i) => {
    const path = `attachments.${i}.data`;
    const data = input.data;
    if (!data) return details.push({ path, message: 'attachment data is empty' });
    if (data.length % 4 !== 0 || !BASE64.test(data)) return details.push({ path, message: 'attachment data is not valid base64' });
    if (decodedLength(data) === 0) return details.push({ path, message: 'attachment data is empty' });
    if (decodedLength(data) >= MAX_ATTACHMENT_BYTES) {
      return details.push({
        path,
        message: `attachment is ${decodedLength(data)} bytes decoded; the limit is under ${MAX_ATTACHMENT_BYTES}`,
      });
    }
    attachments.push({ name: input.name, mimeType: input.mimeType || sniffMimeType(head(data)), base64: data });
  });
  return { attachments, details };
}
