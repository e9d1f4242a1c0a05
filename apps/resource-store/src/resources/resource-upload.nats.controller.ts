import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { RpcHandler } from '@mcp-platform/shared-messaging';
import { ResourceUploadsService } from './resource-uploads.service';

/** Chunked uploads of resource content on the bus (the admin API's raw upload calls these). */
@Controller()
export class ResourceUploadNatsController {
  constructor(private readonly uploads: ResourceUploadsService) {}

  @RpcHandler(resourceStore.beginResourceUpload)
  begin(request: RpcRequestParsed<typeof resourceStore.beginResourceUpload>) {
    return this.uploads.begin(request);
  }

  @RpcHandler(resourceStore.appendResourceUpload)
  append(request: RpcRequestParsed<typeof resourceStore.appendResourceUpload>) {
    return this.uploads.append(request.tenant, request.uploadId, request.offset, request.data);
  }

  @RpcHandler(resourceStore.commitResourceUpload)
  commit(request: RpcRequestParsed<typeof resourceStore.commitResourceUpload>) {
    return this.uploads.commit(request.tenant, request.uploadId, request.totalBytes);
  }

  @RpcHandler(resourceStore.abortResourceUpload)
  abort(request: RpcRequestParsed<typeof resourceStore.abortResourceUpload>) {
    return this.uploads.abort(request.tenant, request.uploadId);
  }
}
