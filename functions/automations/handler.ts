// Lambda for the automations family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { bulkDelete, create, details, duplicate, list, pause, remove, setLive, stats } from './operations';
import { createSchedule, deleteSchedule, schedules } from './schedule-operations';
import { scheduleDesign, scheduleImage } from './step-preview';

export const handler = httpHandler('automations', {
  list,
  create,
  duplicate,
  details,
  stats,
  pause,
  setLive,
  delete: remove,
  bulkDelete,
  schedules,
  createSchedule,
  deleteSchedule,
  scheduleDesign,
  scheduleImage,
});
