// The delivery queue's consumer (SQS, partial batch failures): renders and sends each batch of a send.
import { eventHandler } from '../../shared/event-entry';
import { handleDeliveryEvent } from '../../shared/single-send-runs/delivery-queue';

export const handler = eventHandler(handleDeliveryEvent);
