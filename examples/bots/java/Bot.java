// randbot in Java: remembers the last `legal` line and answers one of its moves.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Random;

public class Bot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        Random rng = new Random(7);
        String[] legal = new String[0];
        for (String line; (line = in.readLine()) != null; ) {
            line = line.strip();
            if (line.equals("ugi")) {
                System.out.println("id name randbot-java\nid author arena examples\nugiok");
            } else if (line.equals("isready")) {
                System.out.println("readyok");
            } else if (line.startsWith("legal ")) {
                legal = line.substring(6).trim().split("\\s+");
            } else if (line.equals("go") || line.startsWith("go ")) {
                System.out.println("bestmove " + (legal.length > 0 && !legal[0].isEmpty()
                        ? legal[rng.nextInt(legal.length)] : "(none)"));
                legal = new String[0];
            } else if (line.equals("quit")) {
                return;
            }
            System.out.flush();
        }
    }
}
