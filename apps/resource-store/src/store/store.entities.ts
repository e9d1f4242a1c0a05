import { PromptEntity } from '../prompts/prompt.entity';
import { ResourceEntity } from '../resources/resource.entity';
import { ResourceTemplateEntity } from '../resources/resource-template.entity';
import { ResourceUploadEntity } from '../resources/resource-upload.entity';
import { ResourceUploadChunkEntity } from '../resources/resource-upload-chunk.entity';
import { SkillEntity } from '../skills/skill.entity';
import { CreateResourceStore1767484800000 } from './migrations/1767484800000-CreateResourceStore';
import { AddChunkedResourceContent1767571200000 } from './migrations/1767571200000-AddChunkedResourceContent';
import { AddPromptInputs1767657600000 } from './migrations/1767657600000-AddPromptInputs';
import { AddSkills1767744000000 } from './migrations/1767744000000-AddSkills';
import { AddUpstreamItems1767830400000 } from './migrations/1767830400000-AddUpstreamItems';
import { AddUpstreamSkills1767916800000 } from './migrations/1767916800000-AddUpstreamSkills';

/** The explicit entity list of the resource store's DataSource (STYLE.md §7). */
export const STORE_ENTITIES = [ResourceEntity, ResourceTemplateEntity, PromptEntity, ResourceUploadEntity, ResourceUploadChunkEntity, SkillEntity];

/** The committed migrations, in order. */
export const STORE_MIGRATIONS = [
  CreateResourceStore1767484800000,
  AddChunkedResourceContent1767571200000,
  AddPromptInputs1767657600000,
  AddSkills1767744000000,
  AddUpstreamItems1767830400000,
  AddUpstreamSkills1767916800000,
];
