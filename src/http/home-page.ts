/**
 * The page at `/` of each server: someone who opens the server's address in
 * a browser learns what it is and where to go, instead of a 404 problem.
 * Plain HTML with no script, style or outside resource.
 */
import type { FastifyInstance } from 'fastify';

interface HomeLink {
  href: string;
  text: string;
}

export interface HomeSection {
  heading: string;
  /** Sentences before the links. */
  text?: string;
  links: readonly HomeLink[];
}

/** Nothing loads from the page, and it runs nothing. */
const HOME_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function homePageHtml(title: string, sections: readonly HomeSection[]): string {
  const body = sections
    .map((section) => {
      const links = section.links.map((link) => `<li><a href="${escape(link.href)}">${escape(link.text)}</a></li>`).join('\n');
      const text = section.text === undefined ? '' : `<p>${escape(section.text)}</p>\n`;
      return `<h2>${escape(section.heading)}</h2>\n${text}${links === '' ? '' : `<ul>\n${links}\n</ul>`}`;
    })
    .join('\n');
  return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escape(title)}</title>\n</head>\n<body>\n<h1>${escape(title)}</h1>\n${body}\n</body>\n</html>\n`;
}

/** Serves the page at GET `/`; made once, when the app is built. */
export function serveHomePage(app: FastifyInstance, title: string, sections: readonly HomeSection[]): void {
  const html = homePageHtml(title, sections);
  app.get('/', async (_request, reply) =>
    reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', HOME_POLICY)
      .header('x-content-type-options', 'nosniff')
      .send(html),
  );
}
