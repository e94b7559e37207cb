// The built-in design library: the blank design and the ready-made ones, in the order clients list them.
// Links point at example.com on purpose: a user replaces them with their own before sending.
import type { Design, Theme } from './design';

export interface LibraryDesign {
  id: number;
  /** Kebab-case; also the preview image's file name (`<slug>.svg`). */
  slug: string;
  name: string;
  isBlank: boolean;
  design: Design;
}

const sans = "Helvetica, Arial, sans-serif";
const serif = "Georgia, 'Times New Roman', serif";

const themes = {
  neutral: { background: '#f4f4f5', surface: '#ffffff', text: '#1f2933', muted: '#616e7c', accent: '#3e4c59', accentText: '#ffffff', font: sans },
  ocean: { background: '#eef4fb', surface: '#ffffff', text: '#102a43', muted: '#52606d', accent: '#1f6feb', accentText: '#ffffff', font: sans },
  forest: { background: '#eef6f0', surface: '#ffffff', text: '#1b2e22', muted: '#55675b', accent: '#2f7d4f', accentText: '#ffffff', font: sans },
  sunset: { background: '#fff4ec', surface: '#ffffff', text: '#2d1b12', muted: '#6b5347', accent: '#d9480f', accentText: '#ffffff', font: sans },
  violet: { background: '#f3f0fb', surface: '#ffffff', text: '#231942', muted: '#5e548e', accent: '#6741d9', accentText: '#ffffff', font: serif },
  slate: { background: '#f1f3f5', surface: '#ffffff', text: '#212529', muted: '#5c636a', accent: '#0b7285', accentText: '#ffffff', font: sans },
} satisfies Record<string, Theme>;

export const libraryDesigns: readonly LibraryDesign[] = [
  {
    id: 1,
    slug: 'blank',
    name: 'Blank',
    isBlank: true,
    design: {
      version: 1,
      preheader: '',
      theme: themes.neutral,
      // Only the skeleton and the compliance footer: the user's own design goes above it.
      blocks: [{ type: 'footer' }],
    },
  },
  {
    id: 2,
    slug: 'newsletter',
    name: 'Monthly Newsletter',
    isBlank: false,
    design: {
      version: 1,
      preheader: 'The stories, tips and updates we picked for you this month.',
      theme: themes.ocean,
      blocks: [
        { type: 'header', brand: '((company_name))' },
        {
          type: 'hero',
          heading: 'This month at ((company_name))',
          text: 'Hi ((first_name)), here is a short round-up of what we have been working on and what is coming next.',
        },
        { type: 'heading', text: 'Featured story' },
        {
          type: 'text',
          text: 'We spent the last few weeks talking to customers about what slows them down. Their answers shaped the improvements you will see over the coming months.\n\nRead the full story on our blog, with the numbers behind it.',
        },
        { type: 'button', label: 'Read the story', url: 'https://example.com/blog/featured' },
        { type: 'divider' },
        {
          type: 'columns',
          items: [
            { title: 'Tip of the month', text: 'Save time by grouping your contacts into lists before each campaign.' },
            { title: 'From the community', text: 'Three customers share how they plan their year, step by step.' },
          ],
        },
        { type: 'footer', note: 'You subscribed to our monthly newsletter.' },
      ],
    },
  },
  {
    id: 3,
    slug: 'welcome',
    name: 'Welcome',
    isBlank: false,
    design: {
      version: 1,
      preheader: 'Thanks for joining us. Here is how to get started.',
      theme: themes.forest,
      blocks: [
        { type: 'header', brand: '((company_name))' },
        {
          type: 'hero',
          heading: 'Welcome aboard, ((first_name))!',
          text: 'We are glad you are here. These three steps take about five minutes and get you set up.',
          button: { label: 'Get started', url: 'https://example.com/start' },
        },
        {
          type: 'columns',
          items: [
            { title: '1. Complete your profile', text: 'Tell us a little about yourself so we can tailor what we send.' },
            { title: '2. Explore the guides', text: 'Short guides walk you through everything, one topic at a time.' },
            { title: '3. Say hello', text: 'Reply to this email any time: a real person reads every message.' },
          ],
        },
        { type: 'text', text: 'See you soon,\nThe ((company_name)) team' },
        { type: 'footer' },
      ],
    },
  },
  {
    id: 4,
    slug: 'promotion',
    name: 'Seasonal Sale',
    isBlank: false,
    design: {
      version: 1,
      preheader: 'Up to 30% off for a few days only.',
      theme: themes.sunset,
      blocks: [
        { type: 'header', brand: '((company_name))' },
        {
          type: 'hero',
          heading: 'Our seasonal sale is on',
          text: '((first_name)), enjoy up to 30% off our most loved products until Sunday midnight.',
          button: { label: 'Shop the sale', url: 'https://example.com/sale' },
        },
        {
          type: 'columns',
          items: [
            { title: 'Bestsellers', text: 'The products our customers reorder most, now at their lowest price of the year.' },
            { title: 'New arrivals', text: 'Fresh additions to the range, included in the sale from day one.' },
          ],
        },
        { type: 'text', text: 'Discount applied at checkout. While stocks last; cannot be combined with other offers.' },
        { type: 'button', label: 'See all offers', url: 'https://example.com/offers' },
        { type: 'footer' },
      ],
    },
  },
  {
    id: 5,
    slug: 'product-announcement',
    name: 'Product Announcement',
    isBlank: false,
    design: {
      version: 1,
      preheader: 'Something new has arrived: meet the latest addition.',
      theme: themes.slate,
      blocks: [
        { type: 'header', brand: '((company_name))' },
        {
          type: 'hero',
          heading: 'Introducing our newest release',
          text: 'Built from your feedback, designed to make everyday work faster.',
          button: { label: 'Take a look', url: 'https://example.com/new' },
        },
        { type: 'heading', text: 'What is new' },
        {
          type: 'columns',
          items: [
            { title: 'Faster', text: 'Everything loads in a fraction of the time.' },
            { title: 'Simpler', text: 'Fewer steps for the tasks you do every day.' },
            { title: 'Safer', text: 'Your data protected by stronger defaults.' },
          ],
        },
        {
          type: 'text',
          text: 'Hi ((first_name)), as a customer of ((company_name)) you get access today at no extra cost. We would love to hear what you think.',
        },
        { type: 'button', label: 'Try it now', url: 'https://example.com/try' },
        { type: 'footer' },
      ],
    },
  },
  {
    id: 6,
    slug: 'event-invitation',
    name: 'Event Invitation',
    isBlank: false,
    design: {
      version: 1,
      preheader: 'You are invited. Save your seat today.',
      theme: themes.violet,
      blocks: [
        { type: 'header', brand: '((company_name))' },
        {
          type: 'hero',
          heading: 'You are invited, ((first_name))',
          text: 'Join us for an evening of talks, demos and conversation with people who share your interests.',
        },
        {
          type: 'details',
          rows: [
            { label: 'Date', value: 'Thursday, 12 June' },
            { label: 'Time', value: '18:00 - 21:00' },
            { label: 'Place', value: 'Main Hall, ((city))' },
          ],
        },
        { type: 'button', label: 'Reserve my seat', url: 'https://example.com/events/rsvp' },
        { type: 'text', text: 'Places are limited. If you cannot make it, the talks will be recorded and shared with everyone who registers.' },
        { type: 'footer' },
      ],
    },
  },
  {
    id: 7,
    slug: 'order-confirmation',
    name: 'Order Confirmation',
    isBlank: false,
    design: {
      version: 1,
      preheader: 'Thank you for your order. Here is your summary.',
      theme: themes.neutral,
      blocks: [
        { type: 'header', brand: '((company_name))' },
        { type: 'heading', text: 'Thank you for your order, ((first_name))' },
        { type: 'text', text: 'We have received your order and are getting it ready. Here is a summary for your records.' },
        {
          type: 'details',
          rows: [
            { label: 'Order number', value: '#100245' },
            { label: 'Product', value: '$49.00' },
            { label: 'Shipping', value: '$5.00' },
          ],
          total: { label: 'Total', value: '$54.00' },
        },
        {
          type: 'text',
          text: 'Shipping to:\n((full_name))\n((address_line1))\n((city)), ((state)) ((postal_code))\n((country))',
        },
        { type: 'button', label: 'View your order', url: 'https://example.com/orders' },
        { type: 'footer', note: 'Questions about your order? Just reply to this email.' },
      ],
    },
  },
];
