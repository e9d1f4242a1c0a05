import { UpstreamApprovalEntity } from '../upstreams/upstream-approval.entity';
import { UpstreamItemEntity } from '../upstreams/upstream-item.entity';
import { UpstreamSourceEntity } from '../upstreams/upstream-source.entity';
import { CreateCatalog1767225600000 } from './migrations/1767225600000-CreateCatalog';
import { AddToolScopes1767312000000 } from './migrations/1767312000000-AddToolScopes';
import { AddToolTaskSupport1767398400000 } from './migrations/1767398400000-AddToolTaskSupport';
import { AddToolLastErrors1767484800000 } from './migrations/1767484800000-AddToolLastErrors';
import { AddTenantDisabled1767571200000 } from './migrations/1767571200000-AddTenantDisabled';
import { AddUpstreamSources1767830400000 } from './migrations/1767830400000-AddUpstreamSources';
import { AddServerComposition1767916800000 } from './migrations/1767916800000-AddServerComposition';
import { AddUpstreamServedItems1768003200000 } from './migrations/1768003200000-AddUpstreamServedItems';
import { AddUpstreamResync1768089600000 } from './migrations/1768089600000-AddUpstreamResync';
import { AddUpstreamSkills1768176000000 } from './migrations/1768176000000-AddUpstreamSkills';
import { TenantEntity } from './tenant.entity';
import { ToolEntity } from './tool.entity';
import { ToolLastErrorEntity } from './tool-last-error.entity';
import { VirtualServerEntity } from './virtual-server.entity';
import { VirtualServerSourceEntity } from './virtual-server-source.entity';
import { VirtualServerToolEntity } from './virtual-server-tool.entity';

/** The explicit entity list of the tool executor's DataSource (STYLE.md §7). */
export const CATALOG_ENTITIES = [
  TenantEntity,
  VirtualServerEntity,
  ToolEntity,
  VirtualServerToolEntity,
  VirtualServerSourceEntity,
  ToolLastErrorEntity,
  UpstreamSourceEntity,
  UpstreamItemEntity,
  UpstreamApprovalEntity,
];

/** The committed migrations, in order. */
export const CATALOG_MIGRATIONS = [
  CreateCatalog1767225600000,
  AddToolScopes1767312000000,
  AddToolTaskSupport1767398400000,
  AddToolLastErrors1767484800000,
  AddTenantDisabled1767571200000,
  AddUpstreamSources1767830400000,
  AddServerComposition1767916800000,
  AddUpstreamServedItems1768003200000,
  AddUpstreamResync1768089600000,
  AddUpstreamSkills1768176000000,
];
