import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One staged chunk of an upload, keyed by where its bytes start in the content. */
@Entity({ name: 'resource_upload_chunks' })
export class ResourceUploadChunkEntity {
  @PrimaryColumn({ type: 'uuid' })
  uploadId!: string;

  @PrimaryColumn({ type: 'integer' })
  byteOffset!: number;

  @Column({ type: 'bytea' })
  data!: Buffer;
}
