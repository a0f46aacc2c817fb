import { colorFor, initials, textOn } from '../lib/format';

interface Props {
  name: string;
  color?: string;
  size?: number;
  title?: string;
  ring?: boolean;
  onClick?: () => void;
  testId?: string;
}

export function Avatar({ name, color, size = 28, title, ring, onClick, testId }: Props) {
  const bg = color ?? colorFor(name);
  const style = {
    width: size,
    height: size,
    fontSize: Math.round(size * 0.4),
    background: bg,
    color: textOn(bg),
  };
  const content = initials(name);
  if (onClick) {
    return (
      <button
        type="button"
        className={`avatar${ring ? ' avatar-ring' : ''}`}
        style={style}
        title={title ?? name}
        aria-label={title ?? name}
        onClick={onClick}
        data-testid={testId}
      >
        {content}
      </button>
    );
  }
  return (
    <span className={`avatar${ring ? ' avatar-ring' : ''}`} style={style} title={title ?? name} data-testid={testId}>
      {content}
    </span>
  );
}
